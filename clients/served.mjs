// A real MCP client, the official TypeScript SDK's, against the resources
// and prompts of examples/shop.hcl, over stdio and over streamable HTTP:
// it lists and reads a resource and a template's, gets a prompt and
// completes a prompt's argument (from its enum) and a template's variable
// (from its complete block's SQL query); over stdio it subscribes to a
// product and is told when restocking changes it.
//
//   node clients/served.mjs MCPDECL_BINARY HTTP_URL SHOP_DB
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [bin, url, db] = process.argv.slice(2);
let failures = 0;
const check = (ok, msg) => { if (!ok) { failures++; console.log(`FAIL: ${msg}`); } };

async function exercise(name, transport) {
  const client = new Client({ name: "mcpdecl-served", version: "1.0.0" });
  await client.connect(transport);
  const caps = client.getServerCapabilities();
  check(caps.resources && caps.prompts && caps.completions, `${name}: capabilities ${JSON.stringify(caps)}`);

  const { resources } = await client.listResources();
  check(resources.some((r) => r.uri === "shop://catalog"), `${name}: resources/list ${JSON.stringify(resources)}`);
  const { resourceTemplates } = await client.listResourceTemplates();
  check(resourceTemplates.some((t) => t.uriTemplate === "shop://products/{sku}"), `${name}: resources/templates/list ${JSON.stringify(resourceTemplates)}`);

  const catalog = await client.readResource({ uri: "shop://catalog" });
  check(JSON.parse(catalog.contents[0].text).length > 10, `${name}: catalog ${JSON.stringify(catalog).slice(0, 200)}`);
  const kettle = await client.readResource({ uri: "shop://products/KET-010" });
  check(JSON.parse(kettle.contents[0].text).name === "Gooseneck kettle", `${name}: product ${JSON.stringify(kettle)}`);
  try {
    await client.readResource({ uri: "shop://products/nope" });
    check(false, `${name}: an invalid SKU was read`);
  } catch (e) {
    check(/sku/.test(String(e)), `${name}: invalid SKU error ${e}`);
  }

  const prompt = await client.getPrompt({ name: "customer_report", arguments: { email: "ada@example.com", length: "brief" } });
  check(prompt.messages[0].role === "user" && prompt.messages[0].content.text.includes("ada@example.com"), `${name}: prompts/get ${JSON.stringify(prompt)}`);
  const done = await client.complete({ ref: { type: "ref/prompt", name: "customer_report" }, argument: { name: "length", value: "de" } });
  check(JSON.stringify(done.completion.values) === '["detailed"]', `${name}: completion ${JSON.stringify(done)}`);
  const skus = await client.complete({ ref: { type: "ref/resource", uri: "shop://products/{sku}" }, argument: { name: "sku", value: "te" } });
  check(JSON.stringify(skus.completion.values) === '["TEA-201","TEA-202"]', `${name}: completion from SQL ${JSON.stringify(skus)}`);

  if (caps.resources.subscribe) {
    // Subscribed to a product, the client is told when restocking changes it.
    const updated = new Promise((resolve) => client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri)));
    await client.subscribeResource({ uri: "shop://products/KET-010" });
    await new Promise((r) => setTimeout(r, 300)); // the first read learns the contents
    await client.callTool({ name: "restock_product", arguments: { sku: "KET-010", quantity: 1 } });
    const uri = await Promise.race([updated, new Promise((r) => setTimeout(() => r("none within 10 s"), 10000))]);
    check(uri === "shop://products/KET-010", `${name}: notifications/resources/updated: ${uri}`);
    await client.unsubscribeResource({ uri: "shop://products/KET-010" });
    console.log(`${name}: resources, templates, prompts, completions and a subscription`);
  } else {
    check(name !== "stdio", `${name}: resources.subscribe not declared`);
    console.log(`${name}: resources, templates, prompts and completions (no subscriptions: ${JSON.stringify(caps.resources)})`);
  }
  await client.close();
}

await exercise("stdio", new StdioClientTransport({ command: bin, args: ["serve", "--var", `shop_db=${db}`, "examples/shop.hcl"], stderr: "ignore" }));
await exercise("http", new StreamableHTTPClientTransport(new URL(url)));
if (failures > 0) process.exit(1);
