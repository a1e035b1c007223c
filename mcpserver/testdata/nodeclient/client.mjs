// An outside client for fixloop mcp: the TypeScript SDK
// (@modelcontextprotocol/sdk) lists the tools and calls
// fixloop_check_candidate, and prints what it got as JSON.
//
//   FIXLOOP_MCP_NODE_SDK=PREFIX node client.mjs FIXLOOP ROOT PATH CANDIDATE_FILE
//
// PREFIX is where `npm install --prefix PREFIX @modelcontextprotocol/sdk`
// put the SDK.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const prefix = process.env.FIXLOOP_MCP_NODE_SDK;
if (!prefix) {
  console.error("FIXLOOP_MCP_NODE_SDK is not set");
  process.exit(2);
}
const dist = join(prefix, "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm");
const { Client } = await import(pathToFileURL(join(dist, "client", "index.js")).href);
const { StdioClientTransport } = await import(pathToFileURL(join(dist, "client", "stdio.js")).href);

const [bin, root, path, candidateFile] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: bin,
  args: ["mcp", "--store", "off", "--root", root],
  env: process.env,
  stderr: "inherit",
});
const client = new Client({ name: "node-sdk-client", version: "1.0.0" });
await client.connect(transport);
const server = client.getServerVersion();
const { tools } = await client.listTools();
const result = await client.callTool(
  { name: "fixloop_check_candidate", arguments: { path, content: readFileSync(candidateFile, "utf8") } },
  undefined,
  { timeout: 300000 },
);
console.log(JSON.stringify({ server, tools: tools.map((t) => t.name), isError: result.isError ?? false, structured: result.structuredContent }));
await client.close();
