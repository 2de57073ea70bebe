// A real MCP client, the official TypeScript SDK's, against mcpdecl: over
// stdio and over streamable HTTP it lists the tools of examples/system.hcl,
// calls each tool that needs no arguments, and checks every result's
// structuredContent against the tool's outputSchema (the SDK's client
// validates it too, and throws when it does not match).
//
//   node clients/check.mjs MCPDECL_BINARY HTTP_URL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import Ajv from "ajv";

const [bin, url] = process.argv.slice(2);
const ajv = new Ajv({ strict: false });
let failures = 0;
const fail = (msg) => { failures++; console.log(`FAIL: ${msg}`); };

async function exercise(name, transport) {
  const client = new Client({ name: "mcpdecl-check", version: "1.0.0" });
  await client.connect(transport);
  const { tools } = await client.listTools();
  if (tools.length === 0) fail(`${name}: no tools listed`);
  let called = 0;
  for (const tool of tools) {
    if ((tool.inputSchema.required ?? []).length > 0) continue;
    const res = await client.callTool({ name: tool.name, arguments: {} });
    called++;
    if (res.isError) { fail(`${name}: ${tool.name} returned a tool error: ${JSON.stringify(res.content)}`); continue; }
    if (tool.outputSchema) {
      if (!res.structuredContent) { fail(`${name}: ${tool.name} has an outputSchema but returned no structuredContent`); continue; }
      const schema = { ...tool.outputSchema };
      delete schema.$schema; // ajv's default draft; the shapes mcpdecl emits are the same
      if (!ajv.validate(schema, res.structuredContent)) fail(`${name}: ${tool.name}: ${ajv.errorsText()}`);
    }
    if (!res.content?.length) fail(`${name}: ${tool.name} returned no content`);
  }
  console.log(`${name}: ${tools.length} tools listed, ${called} called`);
  await client.close();
}

await exercise("stdio", new StdioClientTransport({ command: bin, args: ["serve", "examples/system.hcl"], stderr: "ignore" }));
await exercise("http", new StreamableHTTPClientTransport(new URL(url)));
console.log(failures ? `${failures} failed` : "all checks passed");
process.exit(failures ? 1 : 0);
