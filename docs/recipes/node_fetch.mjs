// tracediff recipe: a tool function and a fetch wrapper writing the snapshots (and the result the model got) as
// envelope-v1 JSON lines.
// Node 18+, no packages: OPENAI_API_KEY=... ORDERS_API=https://... node node_fetch.mjs
// then ship tool-calls.ndjson to tracediff (tracediff ingest, or any log shipper in docs/shippers.md).
import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import { appendFileSync } from "node:fs";

// --- tracediff: paste from here -----------------------------------------------------------
const LOG = process.env.TRACEDIFF_LOG ?? "tool-calls.ndjson";
const SOURCE = "node", RELEASE = process.env.RELEASE ?? "dev"; // which chain; which build of your code
const currentCall = new AsyncLocalStorage(); // { traceId, callId, tool } of the running tool call

function log(snapshot, payload, http = null) {
  const call = currentCall.getStore();
  if (!call) return; // a fetch outside any tool call
  appendFileSync(LOG, JSON.stringify({ trace_id: call.traceId, call_id: call.callId, tool: call.tool, snapshot,
    source: SOURCE, release: RELEASE, payload, http, ts: new Date().toISOString() }) + "\n");
}

const parse = (text) => { try { return JSON.parse(text); } catch { return text; } }; // JSON, else text

// fetch that logs the body your code built and the answer: use it in your tools
async function loggedFetch(url, init = {}) {
  const call = currentCall.getStore(), headers = new Headers(init.headers);
  if (call) headers.set("traceparent", `00-${call.traceId}-${randomBytes(8).toString("hex")}-01`);
  log("request", parse(init.body == null ? "null" : String(init.body)), { method: init.method ?? "GET", url: String(url) });
  const response = await fetch(url, { ...init, headers });
  log("response", parse(await response.clone().text()), { status_code: response.status });
  return response;
}

function traceIdFrom(traceparent) { // W3C "00-<32 hex trace id>-<16 hex>-<flags>", else a new trace id
  const parts = (traceparent ?? "").split("-");
  return parts.length === 4 && parts[1].length === 32 ? parts[1] : randomBytes(16).toString("hex");
}

function runTool(traceId, toolCall, tools) { // one tool call of the model, its snapshots under its ids
  const { id, function: fn } = toolCall;
  return currentCall.run({ traceId, callId: id, tool: fn.name }, async () => {
    log("arguments", fn.arguments); // the model's JSON text, as it sent it
    const content = JSON.stringify(await tools[fn.name](JSON.parse(fn.arguments)));
    log("result", content); // what the model reads back: tracediff checks it against the response
    return content;
  });
}
// --- tracediff: paste to here -------------------------------------------------------------

async function findOrders({ status, limit }) {
  // The planted bug: limit goes out as a string; tracediff reports it as type_changed.
  const response = await loggedFetch(`${process.env.ORDERS_API}/orders/search`, {
    method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ status, limit: String(limit) }) });
  return response.json();
}

const TOOLS = { find_orders: findOrders };
const SPEC = [{ type: "function", function: {
  name: "find_orders", description: "Search the customer's orders.",
  parameters: { type: "object", required: ["status", "limit"], properties: {
    status: { type: "string", enum: ["paid", "refunded"] }, limit: { type: "integer" } } } } }];

async function chat(messages) { // the OpenAI chat completions API, with plain fetch
  const response = await fetch(`${process.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1"}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${process.env.OPENAI_API_KEY}` },
    body: JSON.stringify({ model: process.env.MODEL ?? "gpt-4.1-mini", messages, tools: SPEC }) });
  if (!response.ok) throw new Error(`model API: ${response.status} ${await response.text()}`);
  return (await response.json()).choices[0].message;
}

const traceId = traceIdFrom(process.env.TRACEPARENT); // the caller's trace, else a new one
const messages = [{ role: "user", content: "Show me my last 5 paid orders." }];
let reply;
for (;;) {
  reply = await chat(messages);
  messages.push(reply);
  if (!reply.tool_calls?.length) break;
  for (const toolCall of reply.tool_calls) {
    const content = await runTool(traceId, toolCall, TOOLS);
    messages.push({ role: "tool", tool_call_id: toolCall.id, content });
  }
}
console.log(reply.content);
console.log(`${process.env.TRACEDIFF_URL ?? "http://127.0.0.1:8000"}/traces/${traceId}`);
