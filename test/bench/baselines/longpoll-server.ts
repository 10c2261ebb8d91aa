// Baseline (c): a bare long-poll server. GET /poll parks the request; POST /fire answers
// every parked request with one event carrying the fire time. No framework, no queues.
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
    const body = JSON.stringify({
      result: "success",
      msg: "",
      events: [{ type: "bench", id: 0, sent_at: Date.now() }],
    });
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
