// A tool whose inputSchema refers to its $defs, as mcpdecl import openapi
// writes them, against the official TypeScript SDK's client: over stdio
// (revision 2025-11-25) it lists create_pet of the imported Pet Store with
// $defs, checks arguments against that schema as a client-side validator
// would (Ajv, draft 2020-12), and calls it with a nested, recursive
// argument that reaches the upstream whole; a nested mistake is refused
// with its JSON pointer. A client of 2025-06-18 (over HTTP) is listed the
// same schema with no $ref.
//
//   node clients/defs.mjs MCPDECL_BINARY CONFIG.hcl HTTP_URL
import http from "node:http";
import { isDeepStrictEqual } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import Ajv2020 from "ajv/dist/2020.js";

const [bin, config, url] = process.argv.slice(2);
let failures = 0;
const fail = (msg) => { failures++; console.log(`FAIL: ${msg}`); };

// The upstream: answers a new pet with what it was sent, and an id.
let received = null;
const upstream = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => { body += c; });
  req.on("end", () => {
    received = JSON.parse(body || "null");
    res.writeHead(201, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ ...received, id: 7 }));
  });
});
await new Promise((ok) => upstream.listen(0, "127.0.0.1", ok));
const base = `http://127.0.0.1:${upstream.address().port}`;

const client = new Client({ name: "mcpdecl-defs", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: bin, args: ["serve", "--var", `pet_store_base_url=${base}`, "--var", "pet_store_api_key=check-key", "--var", "pet_store_x_tenant=check", config], stderr: "ignore" }));
const { tools } = await client.listTools();
const tool = tools.find((t) => t.name === "create_pet");
if (!tool) fail("create_pet is not listed");
const schema = tool?.inputSchema ?? {};
if (!schema.$defs?.Owner || schema.properties?.owner?.$ref !== "#/$defs/Owner") {
  fail(`create_pet's inputSchema has no $defs.Owner referred to by owner: ${JSON.stringify(schema)}`);
}
const args = { name: "Rex", owner: { name: "Ann", friend: { name: "Bo", pets: [{ id: 1, name: "Tom" }] } } };
const validate = new Ajv2020({ strict: false }).compile(schema);
if (!validate(args)) fail(`Ajv refuses the arguments: ${JSON.stringify(validate.errors)}`);
if (validate({ ...args, owner: { friend: { name: 3 } } })) fail("Ajv accepts a nested number for a name");

const res = await client.callTool({ name: "create_pet", arguments: args });
if (res.isError) fail(`create_pet: ${JSON.stringify(res.content)}`);
if (!isDeepStrictEqual(received?.owner, args.owner)) fail(`the upstream got ${JSON.stringify(received)}`);
const bad = await client.callTool({ name: "create_pet", arguments: { ...args, owner: { friend: { name: 3 } } } });
if (!bad.isError || !JSON.stringify(bad.content).includes("/owner/friend/name")) {
  fail(`a nested mistake is not refused with its pointer: ${JSON.stringify(bad)}`);
}
await client.close();
console.log(`stdio: create_pet listed with $defs (${Object.keys(schema.$defs ?? {}).join(", ")}), called with a nested owner`);

// A client of 2025-06-18: the same schema, references written in place.
const post = async (id, method, params, session) => {
  const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Mcp-Protocol-Version": "2025-06-18" };
  if (session) headers["Mcp-Session-Id"] = session;
  const r = await fetch(url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id, method, params }) });
  const text = await r.text();
  const line = text.split("\n").find((l) => l.startsWith("data: "));
  return { session: r.headers.get("mcp-session-id"), body: line ? JSON.parse(line.slice(6)) : (text ? JSON.parse(text) : null) };
};
const init = await post(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "old", version: "1" } });
await fetch(url, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Mcp-Protocol-Version": "2025-06-18", ...(init.session ? { "Mcp-Session-Id": init.session } : {}) }, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
const listed = await post(2, "tools/list", {}, init.session);
const old = listed.body?.result?.tools?.find((t) => t.name === "create_pet")?.inputSchema;
const text = JSON.stringify(old ?? null);
if (!old || text.includes("$ref") || text.includes("$defs") || !old.properties?.owner?.properties?.friend) {
  fail(`a 2025-06-18 client is listed ${text}`);
} else {
  console.log("http, 2025-06-18: create_pet listed with its definitions written in place");
}

upstream.close();
console.log(failures ? `${failures} failed` : "all checks passed");
process.exit(failures ? 1 : 0);
