// Baseline (c): a bare long-poll server. GET /poll parks the request; POST /fire?bytes=N
// answers every parked request with one event, the body padded to N bytes (the size of
// chatd's event responses, so both write as much), serialized once. No framework, no queues.
import { createServer, type ServerResponse } from "node:http";

const port = Number(process.argv[2] ?? 0);
const parked = new Set<ServerResponse>();
const server = createServer((req, res) => {
  if (req.url?.startsWith("/poll")) {
    parked.add(res);
    res.on("close", () => parked.delete(res));
    return;
  }
  if (req.url?.startsWith("/fire")) {
    const bytes = Number(new URL(req.url, "http://x").searchParams.get("bytes") ?? 0);
    const event = { type: "bench", id: 0, sent_at: Date.now(), pad: "" };
    const bare = JSON.stringify({ result: "success", msg: "", events: [event] }).length;
    event.pad = "x".repeat(Math.max(0, bytes - bare));
    const body = Buffer.from(JSON.stringify({ result: "success", msg: "", events: [event] }));
    for (const waiting of parked) {
      waiting.writeHead(200, { "content-type": "application/json" });
      waiting.end(body);
    }
    parked.clear();
    res.end("{}");
    return;
  }
  res.writeHead(200, { "content-type": "application/json" });
  res.end('{"result":"success"}');
});
server.keepAliveTimeout = 120_000;
server.listen(port, "127.0.0.1");
process.on("SIGTERM", () => {
  for (const waiting of parked) waiting.destroy();
  server.close(() => process.exit(0));
});
