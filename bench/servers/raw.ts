// (a) The ceiling: the cheapest HTTP answer Bun can give on this machine.
const port = Number(process.env.PORT ?? 0);
const server = Bun.serve({ port, hostname: "127.0.0.1", fetch: () => new Response("Hello World!") });
console.log(`raw Bun.serve listening on ${server.port}`);
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
