// Baseline (a): the bare Koa hello-world JSON endpoint chatd's reads are compared with.
import Koa from "koa";

const port = Number(process.argv[2] ?? 0);
const app = new Koa();
app.use((ctx) => {
  ctx.body = { result: "success", msg: "", hello: "world" };
});
const server = app.listen(port, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
