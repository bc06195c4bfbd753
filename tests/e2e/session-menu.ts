// A chat row's actions as a person reaches them in the page: the row's ⋯ button (shown
// on hover), then the item in its menu (public/sessions/session-menu.js).
import type { Locator, Page } from "playwright-core";

export type RowAction = "pin" | "share" | "rename" | "delete";

/** The row of a chat id, or a row locator as given. */
export function sessionRow(page: Page, row: string | Locator): Locator {
  return typeof row === "string" ? page.locator(`#sessions li[data-session="${row}"]`) : row;
}

/** Opens a row's menu with the mouse and picks an action. */
export async function rowAction(page: Page, row: string | Locator, action: RowAction): Promise<void> {
  const li = sessionRow(page, row);
  await li.hover();
  await li.locator(".row-menu").click();
  await page.locator(`#session-menu [data-action="${action}"]`).click();
}
