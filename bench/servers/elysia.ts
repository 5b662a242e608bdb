import { Elysia } from "elysia";

// (b) Elysia hello-world: the framework's own cost over (a), with nothing of Cusp.
const port = Number(process.env.PORT ?? 0);
const app = new Elysia().get("/", () => "Hello World!").listen({ port, hostname: "127.0.0.1" });
console.log(`Elysia listening on ${app.server?.port}`);
process.on("SIGTERM", () => {
  void app.stop(true).then(() => process.exit(0));
});
