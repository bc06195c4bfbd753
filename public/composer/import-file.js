// Import (POST /api/import): a JSON file chosen from the computer (an edgehost export, one
// of its sessions, or a ChatGPT or Claude conversations.json) becomes new sessions. The
// size limit is checked before sending; the server's refusal is shown as it names what
// was wrong. The first imported session opens.
import { describeError, NetworkError, request } from "../core/api.js";
import { byId } from "../core/dom.js";

/** The Worker's limit (src/http/import.ts MAX_IMPORT_BYTES). */
const MAX_BYTES = 5 * 1024 * 1024;

/** @param {{ imported: (ids: string[]) => Promise<void>, showAlert: (text: string) => void }} hooks */
export function setupImport({ imported, showAlert }) {
  const input = byId("import-file");
  byId("import-open").addEventListener("click", () => input.click());
  input.addEventListener("change", async () => {
    const file = input.files?.[0];
    input.value = "";
    if (!file) return;
    if (file.size > MAX_BYTES) return showAlert(`Could not import “${file.name}”: it is larger than 5 MB.`);
    let body;
    try {
      body = JSON.parse(await file.text());
    } catch {
      return showAlert(`Could not import “${file.name}”: it is not a JSON file.`);
    }
    try {
      const answer = await request("/api/import", { method: "POST", body });
      if (!answer.ok) return showAlert(`Could not import “${file.name}”: ${describeError(answer.status, answer.data)}`);
      await imported(answer.data.imported.map((/** @type {{ id: string }} */ s) => s.id));
    } catch (error) {
      showAlert(error instanceof NetworkError ? error.message : `Could not import “${file.name}”.`);
    }
  });
}
