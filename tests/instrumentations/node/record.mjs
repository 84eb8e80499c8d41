// A real agent of one Node framework, exporting OTLP/HTTP as its docs say (run by ../node_frameworks.py).
//
//   node record.mjs FRAMEWORK one|two
//
// FRAMEWORK: vercel-ai (the `ai` package 6.x, generateText with experimental_telemetry), vercel-ai.stream
// (streamText), vercel-ai5 (`ai` 5.x, generateText), vercel-ai7 (`ai` 7 with @ai-sdk/otel's OpenTelemetry integration; .legacy: its
// LegacyOpenTelemetry), mastra (a Mastra Agent with its OtelBridge). The model is the AI SDK's
// OpenAI-compatible provider at MODEL_URL (a stand-in that asks for one or two find_orders calls); the tool
// posts to ORDERS_URL through the recipe's tracedFetch (docs/recipes/node_otel.mjs, copied beside this
// file), with the planted bug: limit 5 goes out as "5". The spans go to COLLECTOR_URL twice, as protobuf (/v1/traces) and as
// OTLP/JSON (/json/v1/traces), the two exporters Node users pick from.
import { trace } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { z } from "zod";
import { tracedFetch } from "./node_otel.mjs";

const [framework, turn] = process.argv.slice(2);
const { MODEL_URL, ORDERS_URL, COLLECTOR_URL } = process.env;
const PROMPT = turn === "two" ? "Show me my last 5 paid and refunded orders." : "Show me my last 5 paid orders.";

async function findOrders({ status, limit }) {
  // The planted bug: limit goes out as a string.
  const response = await tracedFetch(`${ORDERS_URL}/orders/search`, {
    method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ status, limit: String(limit) }) });
  return response.json();
}

const inputSchema = z.object({ status: z.enum(["paid", "refunded"]), limit: z.number().int() });

function exporters() {
  return [new ProtoExporter({ url: `${COLLECTOR_URL}/v1/traces` }),
    new JsonExporter({ url: `${COLLECTOR_URL}/json/v1/traces` })].map((e) => new BatchSpanProcessor(e));
}

function startSdk() { // the OpenTelemetry Node SDK as the AI SDK's docs set it up, with fetch instrumented
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ "service.name": "orders-agent", "service.version": "1.0.0" }),
    spanProcessors: exporters(), instrumentations: [new UndiciInstrumentation()] });
  sdk.start();
  return async () => { await trace.getTracerProvider().forceFlush?.(); await sdk.shutdown(); };
}

async function vercelAi(stream, [ai, provider] = ["ai6", "ai-oc2"]) {
  const stop = startSdk();
  const { generateText, streamText, tool, stepCountIs } = await import(ai);
  const { createOpenAICompatible } = await import(provider);
  const model = createOpenAICompatible({ name: "standin", baseURL: `${MODEL_URL}/v1`, apiKey: "sk-standin" })(
    "gpt-4.1-mini");
  const tools = { find_orders: tool({ description: "Search the customer's orders.", inputSchema,
    execute: findOrders }) };
  const settings = { model, tools, prompt: PROMPT, stopWhen: stepCountIs(3),
    experimental_telemetry: { isEnabled: true, functionId: "orders-agent" } };
  if (stream) {
    const result = streamText(settings);
    await result.consumeStream();
    console.log(await result.text);
  } else {
    console.log((await generateText(settings)).text);
  }
  await stop();
}

async function vercelAi7(legacy) { // ai 7: telemetry through an @ai-sdk/otel integration, on by default
  const stop = startSdk();
  const { generateText, tool, stepCountIs, registerTelemetry } = await import("ai");
  const { OpenTelemetry, LegacyOpenTelemetry } = await import("@ai-sdk/otel");
  const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
  registerTelemetry(legacy ? new LegacyOpenTelemetry() : new OpenTelemetry());
  const model = createOpenAICompatible({ name: "standin", baseURL: `${MODEL_URL}/v1`, apiKey: "sk-standin" })(
    "gpt-4.1-mini");
  const tools = { find_orders: tool({ description: "Search the customer's orders.", inputSchema,
    execute: findOrders }) };
  const result = await generateText({ model, tools, prompt: PROMPT, stopWhen: stepCountIs(3),
    telemetry: { functionId: "orders-agent" } });
  console.log(result.text);
  await stop();
}

async function mastra() {
  const stop = startSdk();
  const { Agent } = await import("@mastra/core/agent");
  const { Mastra } = await import("@mastra/core/mastra");
  const { createTool } = await import("@mastra/core/tools");
  const { Observability } = await import("@mastra/observability");
  const { OtelBridge } = await import("@mastra/otel-bridge");
  const { createOpenAICompatible } = await import("ai-oc2");
  const model = createOpenAICompatible({ name: "standin", baseURL: `${MODEL_URL}/v1`, apiKey: "sk-standin" })(
    "gpt-4.1-mini");
  const findOrdersTool = createTool({ id: "find_orders", description: "Search the customer's orders.",
    inputSchema, execute: async (input) => findOrders(input.context ?? input) });
  const agent = new Agent({ name: "orders-agent", instructions: "Find orders.", model,
    tools: { find_orders: findOrdersTool } });
  // the bridge makes Mastra's spans OpenTelemetry spans, so the tool's fetch span nests under its tool span
  const app = new Mastra({ agents: { ordersAgent: agent }, observability: new Observability({ configs: {
    default: { serviceName: "orders-agent", bridge: new OtelBridge() } } }) });
  const result = await app.getAgent("ordersAgent").generate(PROMPT, { maxSteps: 3 });
  console.log(result.text);
  await app.shutdown?.();
  await stop();
}

const FRAMEWORKS = { "vercel-ai": () => vercelAi(false), "vercel-ai.stream": () => vercelAi(true),
  "vercel-ai5": () => vercelAi(false, ["ai5", "ai-oc1"]),
  "vercel-ai7": () => vercelAi7(false), "vercel-ai7.legacy": () => vercelAi7(true), mastra };
await FRAMEWORKS[framework]();
