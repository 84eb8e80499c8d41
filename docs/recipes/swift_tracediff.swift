// tracediff recipe for Swift: an App Intent and a Foundation Models Tool, their snapshots and results as envelope-v1
// lines written to os.Logger and posted to tracediff in batches.
//
// NOT RUN IN CI: tracediff's CI has no Swift toolchain. Written against the documented APIs of AppIntents,
// FoundationModels (iOS 26 / macOS 26), os.Logger and URLSession, and reviewed line by line; the Python and
// Node recipes next to it are the ones the tests execute.
import AppIntents
import Foundation
import FoundationModels
import os

// MARK: - tracediff: paste from here

/// One tool call: its trace (shared by the calls of one conversation), its own id, its tool and its chain.
struct TracediffCall: Sendable {
    let traceId: String, callId: String, tool: String, source: String

    init(tool: String, source: String, traceId: String = TracediffCall.trace(from: nil)) {
        self.traceId = traceId; self.callId = UUID().uuidString.lowercased(); self.tool = tool; self.source = source
    }

    /// The trace id of a W3C traceparent ("00-<32 hex>-<16 hex>-<flags>"), else a new random one.
    static func trace(from traceparent: String?) -> String {
        let parts = traceparent?.split(separator: "-") ?? []
        return parts.count == 4 && parts[1].count == 32 ? String(parts[1]) : hex(16)
    }

    static func hex(_ bytes: Int) -> String {
        (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max)) }.joined()
    }

    func arguments(_ json: Data) async { await Tracediff.shared.log(self, "arguments", json) }

    /// What the tool hands back to the model (or the intent to its caller): checked against the response.
    func result(_ text: String) async { await Tracediff.shared.log(self, "result", Data(text.utf8)) }

    /// URLSession's data(for:), logging the body your code built and the answer, passing the trace on.
    func data(for request: URLRequest, session: URLSession = .shared) async throws -> (Data, URLResponse) {
        var request = request
        request.setValue("00-\(traceId)-\(Self.hex(8))-01", forHTTPHeaderField: "traceparent")
        await Tracediff.shared.log(self, "request", request.httpBody ?? Data("null".utf8),
                                   method: request.httpMethod ?? "GET", url: request.url?.absoluteString)
        let (data, response) = try await session.data(for: request)
        await Tracediff.shared.log(self, "response", data, status: (response as? HTTPURLResponse)?.statusCode)
        return (data, response)
    }
}

/// Envelope-v1 lines: each written to the unified log (private), and posted to tracediff in batches.
actor Tracediff {
    static let shared = Tracediff(ingest: URL(string: "https://tracediff.example.com/api/v1/ingest")!)
    static let release = Bundle.main.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String ?? "dev"
    private let ingest: URL
    private let logger = Logger(subsystem: "com.example.orders", category: "tracediff")
    private var lines: [Data] = []

    init(ingest: URL) { self.ingest = ingest }

    func log(_ call: TracediffCall, _ snapshot: String, _ body: Data,
             method: String? = nil, url: String? = nil, status: Int? = nil) async {
        // A JSON body as JSON, any other body as text.
        let payload: Any = (try? JSONSerialization.jsonObject(with: body, options: .fragmentsAllowed))
            ?? String(decoding: body, as: UTF8.self)
        let clock = ISO8601DateFormatter()
        clock.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var event: [String: Any] = ["trace_id": call.traceId, "call_id": call.callId, "tool": call.tool,
                                    "snapshot": snapshot, "source": call.source, "release": Self.release,
                                    "payload": payload, "ts": clock.string(from: Date())]
        var http: [String: Any] = [:]
        if let method { http["method"] = method }
        if let url { http["url"] = url }
        if let status { http["status_code"] = status }
        if !http.isEmpty { event["http"] = http }
        guard let line = try? JSONSerialization.data(withJSONObject: event) else { return }
        logger.debug("\(String(decoding: line, as: UTF8.self), privacy: .private)")
        lines.append(line)
        if lines.count >= 30 { await flush() }
    }

    /// Post the waiting lines as one NDJSON body; keep them for the next flush when tracediff cannot take them.
    func flush() async {
        guard !lines.isEmpty else { return }
        let batch = lines
        lines.removeAll()
        var request = URLRequest(url: ingest)
        request.httpMethod = "POST"
        request.setValue("application/x-ndjson", forHTTPHeaderField: "Content-Type")
        // request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")  // with TRACEDIFF_INGEST_TOKENS
        request.httpBody = Data(batch.joined(separator: Data("\n".utf8)))
        do {
            let (_, response) = try await URLSession.shared.data(for: request)
            let code = (response as? HTTPURLResponse)?.statusCode ?? 0
            if code == 429 || code >= 500 { lines.insert(contentsOf: batch, at: 0) }  // busy: try again later
        } catch {
            lines.insert(contentsOf: batch, at: 0)  // offline: try again later
        }
        if lines.count > 1_000 { lines.removeFirst(lines.count - 1_000) }  // never grow without bound
    }
}
// MARK: - tracediff: paste to here

/// Your mapping layer: the HTTP request built from the arguments.
enum OrdersAPI {
    static let base = URL(string: "https://api.example.com")!

    static func search(status: String, limit: Int) -> URLRequest {
        var request = URLRequest(url: base.appending(path: "orders/search"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        // The planted bug: limit goes out as a string; tracediff reports it as type_changed.
        request.httpBody = try? JSONSerialization.data(withJSONObject: ["status": status, "limit": String(limit)])
        return request
    }
}

/// Chain 1: an App Intent (Siri, Shortcuts, Spotlight). Its parameters are the arguments.
struct FindOrdersIntent: AppIntent {
    static let title: LocalizedStringResource = "Find Orders"

    @Parameter(title: "Status", default: "paid") var status: String
    @Parameter(title: "Limit", default: 5) var limit: Int

    struct Arguments: Encodable { let status: String; let limit: Int }

    func perform() async throws -> some IntentResult & ReturnsValue<String> {
        let call = TracediffCall(tool: "findOrders", source: "app_intent")  // no caller trace: a new one
        let arguments = try JSONEncoder().encode(Arguments(status: status, limit: limit))
        await call.arguments(arguments)
        let (data, _) = try await call.data(for: OrdersAPI.search(status: status, limit: limit))
        let value = String(decoding: data, as: UTF8.self)
        await call.result(value)
        await Tracediff.shared.flush()  // the system may suspend the process once perform() returns
        return .result(value: value)
    }
}

/// Chain 2: a Foundation Models tool. Its @Generable arguments, as the model generated them, are the arguments.
@available(iOS 26.0, macOS 26.0, *)
struct FindOrdersTool: Tool {
    let name = "findOrders"
    let description = "Search the customer's orders by status."
    let traceId: String  // one trace per conversation: every call this session makes shares it

    @Generable
    struct Arguments {
        @Guide(description: "The order status: paid or refunded") var status: String
        @Guide(description: "How many orders to show", .range(1...50)) var limit: Int
    }

    func call(arguments: Arguments) async throws -> String {
        let call = TracediffCall(tool: name, source: "foundation_models", traceId: traceId)
        await call.arguments(Data(arguments.generatedContent.jsonString.utf8))
        let (data, _) = try await call.data(for: OrdersAPI.search(status: arguments.status, limit: arguments.limit))
        let text = String(decoding: data, as: UTF8.self)
        await call.result(text)  // what the model reads
        return text
    }
}

@available(iOS 26.0, macOS 26.0, *)
func askAboutOrders() async throws -> String {
    let tool = FindOrdersTool(traceId: TracediffCall.trace(from: nil))  // or the trace of the request you serve
    let session = LanguageModelSession(tools: [tool], instructions: "You help customers with their orders.")
    let answer = try await session.respond(to: "Show me my last 5 paid orders.")
    await Tracediff.shared.flush()
    return answer.content
}
