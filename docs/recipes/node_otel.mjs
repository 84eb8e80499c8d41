// tracediff recipe: fetch traced with OpenTelemetry, the request and response bodies on its HTTP client span
// (the attributes of the Python recipe's hooks), a GenAI execute_tool span around each tool call.
// Node 18+: npm install the packages of node/package.json, then
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://127.0.0.1:8000/v1/traces OPENAI_API_KEY=... ORDERS_API=https://... \
//   node node_otel.mjs
// In an agent framework (the Vercel AI SDK, Mastra) that makes its own tool spans, use tracedFetch alone.
import { context, propagation, trace, ROOT_CONTEXT, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { suppressTracing } from "@opentelemetry/core";
import { pathToFileURL } from "node:url";

// --- tracediff: paste from here -----------------------------------------------------------
const MAX_BODY = 1_000_000; // a larger body is left off its span rather than cut into broken JSON
const tracer = trace.getTracer("tracediff-fetch");

function bodyText(body) { // the body your code built, as text; undefined for streams and forms
  if (typeof body === "string" || body instanceof URLSearchParams) return String(body);
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return new TextDecoder().decode(body);
}

// fetch with its own HTTP client span holding both bodies: use it in your tools (JSON APIs, not downloads).
// The undici instrumentation ends its span as the last byte arrives, before any code can read the body, and
// the undici of Node 20 tells no one the bytes; so this span is made here, and the undici one suppressed.
export async function tracedFetch(url, init = {}) {
  const method = (init.method ?? "GET").toUpperCase(), target = new URL(String(url));
  const attributes = { "http.request.method": method, "url.full": target.href, "server.address": target.hostname,
    "server.port": Number(target.port) || (target.protocol === "https:" ? 443 : 80) };
  return tracer.startActiveSpan(method, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const headers = new Headers(init.headers), sent = bodyText(init.body);
    propagation.inject(context.active(), headers, { set: (carrier, key, value) => carrier.set(key, value) });
    if (sent !== undefined && sent.length <= MAX_BODY) span.setAttribute("http.request.body.content", sent);
    try {
      const response = await context.with(suppressTracing(context.active()), () => fetch(url, { ...init, headers }));
      span.setAttribute("http.response.status_code", response.status);
      // read from a clone, so your code still reads the body
      const answer = await response.clone().text();
      if (answer.length <= MAX_BODY) span.setAttribute("http.response.body.content", answer);
      if (response.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
      return response;
    } catch (error) {
      span.recordException(error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

// one tool call of the model inside a GenAI execute_tool span that holds its arguments and result
export function runTool(toolCall, tools) {
  const { id, function: fn } = toolCall;
  return tracer.startActiveSpan(`execute_tool ${fn.name}`, { attributes: {
      "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": fn.name, "gen_ai.tool.call.id": id,
      "gen_ai.tool.call.arguments": fn.arguments, "tracediff.source": "node" } }, async (span) => {
    try {
      const content = JSON.stringify(await tools[fn.name](JSON.parse(fn.arguments)));
      span.setAttribute("gen_ai.tool.call.result", content);
      return content;
    } finally {
      span.end();
    }
  });
}
// --- tracediff: paste to here -------------------------------------------------------------

async function findOrders({ status, limit }) {
  // The planted bug: limit goes out as a string; tracediff reports it as type_changed.
  const response = await tracedFetch(`${process.env.ORDERS_API}/orders/search`, {
    method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ status, limit: String(limit) }) });
  return response.json();
}

const TOOLS = { find_orders: findOrders };
const SPEC = [{ type: "function", function: {
  name: "find_orders", description: "Search the customer's orders.",
  parameters: { type: "object", required: ["status", "limit"], properties: {
    status: { type: "string", enum: ["paid", "refunded"] }, limit: { type: "integer" } } } } }];

async function chat(messages) { // the OpenAI chat completions API, with plain fetch (not traced: no tool's call)
  const response = await fetch(`${process.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1"}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${process.env.OPENAI_API_KEY}` },
    body: JSON.stringify({ model: process.env.MODEL ?? "gpt-4.1-mini", messages, tools: SPEC }) });
  if (!response.ok) throw new Error(`model API: ${response.status} ${await response.text()}`);
  return (await response.json()).choices[0].message;
}

async function agent() { // the agent loop, inside one span: the trace id of its calls
  return tracer.startActiveSpan("invoke_agent orders-agent", async (span) => {
    const messages = [{ role: "user", content: "Show me my last 5 paid orders." }];
    let reply;
    for (;;) {
      reply = await chat(messages);
      messages.push(reply);
      if (!reply.tool_calls?.length) break;
      for (const toolCall of reply.tool_calls) {
        messages.push({ role: "tool", tool_call_id: toolCall.id, content: await runTool(toolCall, TOOLS) });
      }
    }
    span.end();
    return [reply.content, span.spanContext().traceId];
  });
}

async function main() {
  const { NodeTracerProvider, BatchSpanProcessor } = await import("@opentelemetry/sdk-trace-node");
  const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-proto");
  const { resourceFromAttributes } = await import("@opentelemetry/resources");
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": "orders-agent", "service.version": process.env.RELEASE ?? "dev" }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())], // endpoint from OTEL_EXPORTER_OTLP_*
  });
  provider.register(); // the W3C traceparent propagator and async context, Node's way
  const caller = propagation.extract(ROOT_CONTEXT, { traceparent: process.env.TRACEPARENT ?? "" }); // else a new trace
  const [answer, traceId] = await context.with(caller, agent);
  await provider.forceFlush(); // BatchSpanProcessor sends in the background; flush before a short script exits
  console.log(answer);
  console.log(`${process.env.TRACEDIFF_URL ?? "http://127.0.0.1:8000"}/traces/${traceId}`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
