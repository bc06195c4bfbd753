// Example prompts for a new chat's welcome, from the tools of the servers the person
// has switched on: a filesystem's list_directory suggests listing the files, a fetch
// tool fetching a page, and so on; a server none of these fit gets a question about
// what its tools do. Plain data in, plain data out (no DOM): tests/page checks it.

/** @typedef {{ name: string, title?: string, description?: string }} ToolLike */
/** @typedef {{ name: string, enabled?: boolean, state?: string, tools?: ToolLike[] }} ServerLike */
/** @typedef {{ text: string, server: string, tool: string }} ExamplePrompt */

/**
 * Tool names (as MCP servers commonly call them) and what a person would ask of them.
 * A prompt ending in a space is one to finish: the caret waits after it.
 * @type {[RegExp, string][]}
 */
const KINDS = [
  [/^(list_directory|list_dir|list_files|ls)$/, "List the files in my folder and say what each one is."],
  [/^(read_text_file|read_file|read_multiple_files|cat)$/, "Read the notes in my folder and summarise them."],
  [/^(search_files|find_files|grep|search_code)$/, "Search my files for "],
  [/^(fetch|fetch_url|get_url|http_get|browse)$/, "Fetch https://example.com and summarise the page."],
  [/(^|_)(web_search|search_web|brave_web_search|tavily_search)$/, "Search the web for "],
  [/(^|_)(get_current_time|current_time|now|time)$/, "What time is it in Tokyo right now?"],
  [/(^|_)(weather|forecast)/, "What is the weather in Paris tomorrow?"],
  [/(^|_)(list_issues|search_issues)$/, "List the open issues of my repositories."],
  [/(^|_)(list_tables|query|sql)$/, "Which tables are in the database, and what do they hold?"],
  [/^list_allowed_directories$/, "Which folders can you read? List them."],
];

/**
 * At most `max` prompts, at most two per server, none twice; servers switched off or
 * not ready give none.
 * @param {ServerLike[]} servers
 * @param {number} [max]
 * @returns {ExamplePrompt[]}
 */
export function examplePrompts(servers, max = 4) {
  /** @type {ExamplePrompt[]} */
  const found = [];
  const usable = servers.filter((s) => s.enabled !== false && (s.state === undefined || s.state === "ready") && (s.tools?.length ?? 0) > 0);
  for (const server of usable) {
    let mine = 0;
    // In the order of KINDS (the likeliest first ask), not of the server's tool list.
    for (const [pattern, text] of KINDS) {
      const tool = server.tools?.find((t) => pattern.test(t.name.toLowerCase()));
      if (!tool || found.some((p) => p.text === text)) continue;
      found.push({ text, server: server.name, tool: tool.name });
      if (++mine === 2) break;
    }
    if (mine === 0) {
      const tool = /** @type {ToolLike} */ (server.tools?.[0]);
      found.push({ text: `What can you do with the ${server.name} tools? Show me with ${tool.title ?? tool.name}.`, server: server.name, tool: tool.name });
    }
  }
  // Every server gets its first prompt in before any gets a second.
  const firsts = usable.map((s) => found.find((p) => p.server === s.name)).filter((p) => p !== undefined);
  return [...firsts, ...found.filter((p) => !firsts.includes(p))].slice(0, max);
}
