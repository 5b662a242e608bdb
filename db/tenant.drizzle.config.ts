import { defineConfig } from "drizzle-kit";
export default defineConfig({ dialect: "sqlite", schema: "./db/tenant/*.ts", out: "./db/migrations/tenant" });
