// A real MCP client, the official TypeScript SDK's, answers the
// confirmation of examples/shop.hcl's cancel_order (a confirm block):
// over stdio it is asked with elicitation/create, with the message and
// the form; a decline and a dismissal cancel nothing (the order is still
// pending after them), an acceptance cancels it with the reason chosen,
// and an answer outside the form is refused; find_customer_orders asks
// for the e-mail address a call lacks. Over HTTP without sessions its
// revision (before 2026-07-28) cannot be asked, and the call is refused,
// the reason naming http_sessions.
//
//   node clients/confirm.mjs MCPDECL_BINARY HTTP_URL SHOP_DB
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [bin, url, db] = process.argv.slice(2);
let failures = 0;
const check = (ok, msg) => { if (!ok) { failures++; console.log(`FAIL: ${msg}`); } };
const text = (res) => (res.content || []).map((c) => c.text).join("\n");

let answer = { action: "decline" };
const asked = [];
const client = new Client({ name: "mcpdecl-confirm", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
client.setRequestHandler(ElicitRequestSchema, (req) => {
  asked.push(req.params);
  return answer;
});
await client.connect(new StdioClientTransport({ command: bin, args: ["serve", "--var", `shop_db=${db}`, "examples/shop.hcl"], stderr: "ignore" }));
const cancel = (id) => client.callTool({ name: "cancel_order", arguments: { order_id: id } });

let res = await cancel(15);
check(res.isError && /declined/.test(text(res)) && /nothing was done/.test(text(res)), `decline: ${JSON.stringify(res)}`);
const q = asked[0];
check(q && q.message === "Cancel order 15? This cannot be undone.", `the question: ${JSON.stringify(q)}`);
const reason = q?.requestedSchema?.properties?.reason;
check(reason && reason.type === "string" && reason.enum.length === 3 && reason.default === "customer request", `the form: ${JSON.stringify(q?.requestedSchema)}`);

answer = { action: "cancel" };
res = await cancel(15);
check(res.isError && /dismissed/.test(text(res)), `cancel: ${JSON.stringify(res)}`);

answer = { action: "accept", content: { reason: "fraud" } };
res = await cancel(15);
check(!res.isError && res.structuredContent?.status === "cancelled" && res.structuredContent?.reason === "fraud",
  `accept (the order was still pending: the decline and the dismissal cancelled nothing): ${JSON.stringify(res)}`);
res = await cancel(15);
check(res.isError && /not pending or paid/.test(text(res)), `accepted twice: the first acceptance cancelled the order: ${JSON.stringify(res)}`);

answer = { action: "accept", content: { reason: "boredom" } };
try {
  res = await cancel(13);
  check(res.isError, `an answer outside the form was taken: ${JSON.stringify(res)}`);
} catch (e) {
  // The SDK checks the answer against the form before the tool sees it.
  check(/schema|form|reason/i.test(String(e)), `an answer outside the form: ${e}`);
}
answer = { action: "accept", content: { reason: "customer request" } };
res = await cancel(13);
check(!res.isError && res.structuredContent?.status === "cancelled", `order 13 after an answer outside the form: ${JSON.stringify(res)}`);

// An argument with ask: a call without it asks for it.
answer = { action: "accept", content: { email: "Ada.Lovelace@example.com" } };
asked.length = 0;
res = await client.callTool({ name: "find_customer_orders", arguments: {} });
check(!res.isError && res.structuredContent?.orders?.length > 0 && asked[0]?.requestedSchema?.properties?.email?.format === "email",
  `a missing argument asked for: ${JSON.stringify(res)} after ${JSON.stringify(asked)}`);
await client.close();
console.log("stdio: accept, decline, cancel, an answer outside the form, and a missing argument asked for");

const remote = new Client({ name: "mcpdecl-confirm", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
remote.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: { reason: "fraud" } }));
await remote.connect(new StreamableHTTPClientTransport(new URL(url)));
res = await remote.callTool({ name: "cancel_order", arguments: { order_id: 8 } });
check(res.isError && /http_sessions = true/.test(text(res)) && /nothing was done/.test(text(res)), `http: ${JSON.stringify(res)}`);
await remote.close();
console.log("http: a client of an earlier revision is refused, with the reason");
if (failures > 0) process.exit(1);
