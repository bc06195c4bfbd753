// `npm run coverage` carries what bridge processes ran back onto src/ (scripts/lib/child-coverage.mjs).
// Checked on a real bridge run with NODE_V8_COVERAGE: the counts that reach local-bridge/src/auth.ts'
// statements and branches are the requests this test sent, through the real bundle's source map.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { addChildCoverage, type FileCoverageData, type Range } from "../../scripts/lib/child-coverage.mjs";
import { startBridge } from "../fixtures/bridge";
import { everythingBin, repoRoot } from "../fixtures/servers";

const authFile = join(repoRoot, "local-bridge", "src", "auth.ts");
const bundles = ["cli", "connect", "config-loader"].map((name) => join(repoRoot, "local-bridge", "dist", `${name}.mjs`));
const dumps = mkdtempSync(join(tmpdir(), "child-coverage-"));
afterAll(() => rmSync(dumps, { recursive: true, force: true }));

/**
 * istanbul's kind of map for a source, made from TypeScript's syntax tree: every statement, every
 * function, and each `if` with its two branches (the first placed at the `if`, as istanbul places it).
 */
function mapOf(path: string): FileCoverageData {
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
  // As vitest writes them: 1-based lines, 0-based columns, and no end column (to the end of the line).
  const range = (node: ts.Node): Range => {
    const start = source.getLineAndCharacterOfPosition(node.getStart(source));
    const end = source.getLineAndCharacterOfPosition(node.getEnd());
    return { start: { line: start.line + 1, column: start.character }, end: { line: end.line + 1, column: null as unknown as number } };
  };
  const data: FileCoverageData = { path, statementMap: {}, fnMap: {}, branchMap: {}, s: {}, f: {}, b: {} };
  const visit = (node: ts.Node) => {
    const isStatement = ts.isReturnStatement(node) || ts.isIfStatement(node) || ts.isVariableStatement(node) || ts.isExpressionStatement(node);
    if (isStatement) {
      const id = String(Object.keys(data.statementMap).length);
      data.statementMap[id] = range(node);
      data.s[id] = 0;
    }
    if (ts.isFunctionDeclaration(node) && node.name) {
      const id = String(Object.keys(data.fnMap).length);
      data.fnMap[id] = { name: node.name.text, decl: range(node.name), loc: range(node), line: range(node).start.line };
      data.f[id] = 0;
    }
    if (ts.isIfStatement(node)) {
      const id = String(Object.keys(data.branchMap).length);
      const at = range(node);
      // Without an `else`, istanbul's second location is empty.
      const none = { start: {}, end: {} } as Range;
      data.branchMap[id] = { type: "if", loc: at, locations: [at, node.elseStatement ? range(node.elseStatement) : none], line: at.start.line };
      data.b[id] = [0, 0];
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return data;
}

/** The statement that starts with `text` (its first occurrence in the file). */
function statementAt(data: FileCoverageData, text: string): string {
  const lines = readFileSync(data.path, "utf8").split("\n");
  const id = Object.keys(data.statementMap).find((sid) => {
    const { start } = data.statementMap[sid] as Range;
    return lines[start.line - 1]?.slice(start.column).startsWith(text);
  });
  if (id === undefined) throw new Error(`no statement starts with ${text}`);
  return id;
}

describe("a bridge process's coverage, carried onto its sources", () => {
  it("counts each statement and branch of auth.ts as often as the requests the test sent ran it", async () => {
    const bridge = await startBridge({ everything: { command: process.execPath, args: [everythingBin, "stdio"] } }, ["--no-watch"], {
      env: { NODE_V8_COVERAGE: dumps },
    });
    const wrongToken = 3;
    const noToken = 2;
    const send = (headers: Record<string, string>) => fetch(`${bridge.url}/metrics`, { headers }).then((r) => r.status);
    for (let i = 0; i < wrongToken; i++) expect(await send({ authorization: "Bearer wrong-token-of-the-same-len" })).toBe(401);
    for (let i = 0; i < noToken; i++) expect(await send({})).toBe(401);
    expect(await bridge.stop()).toBe(0);

    const data = mapOf(authFile);
    const map = { files: () => [authFile], fileCoverageFor: () => ({ data }) };
    // The bridge and its mcp.json loader: the two processes that ran a bundle.
    expect(addChildCoverage(map, dumps, bundles)).toBe(2);

    const count = (text: string) => data.s[statementAt(data, text)];
    expect(count("const header = req.headers.authorization")).toBe(wrongToken + noToken);
    expect(count('return { status: 401, message: "missing bearer token')).toBe(noToken);
    expect(count('return { status: 401, message: "wrong bearer token"')).toBe(wrongToken);
    expect(count("const a = Buffer.from(presented)")).toBe(wrongToken);
    // No request came from a foreign origin.
    expect(count("return { status: 403, message: `Origin")).toBe(0);
    expect(count("const host = (req.headers.host")).toBe(wrongToken + noToken);

    // `if (!presented) return …`: taken for the requests without a token, not taken for the others.
    const ifNoToken = Object.keys(data.branchMap).find(
      (id) => data.branchMap[id]?.loc.start.line === data.statementMap[statementAt(data, "if (!presented)")]?.start.line,
    );
    expect(data.b[ifNoToken ?? ""]).toEqual([noToken, wrongToken]);
    const checkToken = Object.keys(data.fnMap).find((id) => data.fnMap[id]?.name === "checkToken") ?? "";
    expect(data.f[checkToken]).toBe(wrongToken + noToken);
  });
});
