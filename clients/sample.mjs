// A real MCP client, the official TypeScript SDK's, answers the sampling
// request of examples/shop.hcl's classify_feedback (a sample block): over
// stdio it is sent sampling/createMessage with the feedback as the user
// message, the system prompt, max_tokens and the model preferences, and
// its model's JSON answer becomes the structured result; an answer in
// prose is a tool error. A client without the sampling capability is
// refused with the reason, and so is one of an earlier revision than
// 2026-07-28 over HTTP without sessions (the reason names http_sessions).
//
//   node clients/sample.mjs MCPDECL_BINARY HTTP_URL SHOP_DB
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [bin, url, db] = process.argv.slice(2);
let failures = 0;
const check = (ok, msg) => { if (!ok) { failures++; console.log(`FAIL: ${msg}`); } };
const text = (res) => (res.content || []).map((c) => c.text).join("\n");
const serve = () => new StdioClientTransport({ command: bin, args: ["serve", "--var", `shop_db=${db}`, "examples/shop.hcl"], stderr: "ignore" });
const classify = (c, feedback) => c.callTool({ name: "classify_feedback", arguments: { feedback } });

let answer = '{"sentiment": "negative", "topic": "service"}';
const asked = [];
const client = new Client({ name: "mcpdecl-sample", version: "1.0.0" }, { capabilities: { sampling: {} } });
client.setRequestHandler(CreateMessageRequestSchema, (req) => {
  asked.push(req.params);
  return { role: "assistant", model: "test-model", stopReason: "endTurn", content: { type: "text", text: answer } };
});
await client.connect(serve());

let res = await classify(client, "The flat white was cold.");
check(!res.isError && res.structuredContent?.sentiment === "negative" && res.structuredContent?.topic === "service", `classify: ${JSON.stringify(res)}`);
const p = asked[0];
check(p && p.messages?.length === 1 && p.messages[0].role === "user" && p.messages[0].content?.text === "The flat white was cold.", `the messages: ${JSON.stringify(p?.messages)}`);
check(p && /coffee shop/.test(p.systemPrompt) && p.maxTokens === 100 && p.modelPreferences?.hints?.[0]?.name === "haiku" && p.modelPreferences?.speedPriority === 0.8,
  `the request: ${JSON.stringify(p)}`);

answer = "The customer was unhappy.";
res = await classify(client, "Slow.");
check(res.isError && /did not answer JSON/.test(text(res)), `an answer in prose: ${JSON.stringify(res)}`);
await client.close();
console.log("stdio: sampling/createMessage answered, a JSON answer checked, an answer in prose refused");

const without = new Client({ name: "mcpdecl-sample", version: "1.0.0" }, { capabilities: {} });
await without.connect(serve());
res = await classify(without, "Lovely croissants.");
check(res.isError && /did not declare the sampling capability/.test(text(res)), `a client without sampling: ${JSON.stringify(res)}`);
await without.close();
console.log("stdio: a client without the sampling capability is refused, with the reason");

const remote = new Client({ name: "mcpdecl-sample", version: "1.0.0" }, { capabilities: { sampling: {} } });
remote.setRequestHandler(CreateMessageRequestSchema, () => ({ role: "assistant", model: "m", content: { type: "text", text: "{}" } }));
await remote.connect(new StreamableHTTPClientTransport(new URL(url)));
res = await classify(remote, "Lovely croissants.");
check(res.isError && /http_sessions = true/.test(text(res)), `http: ${JSON.stringify(res)}`);
await remote.close();
console.log("http: a client of an earlier revision is refused, with the reason");
if (failures > 0) process.exit(1);
