// Starts the real servers the workerd tests reach over 127.0.0.1 and hands their
// URLs in through `provide` (workerd cannot spawn processes itself).
import type { TestProject } from "vitest/node";
import { startEverythingHttp } from "../fixtures/http-servers";

declare module "vitest" {
  export interface ProvidedContext {
    everythingUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const everything = await startEverythingHttp("streamableHttp");
  project.provide("everythingUrl", everything.url);
  return () => everything.stop();
}
