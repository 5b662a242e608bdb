/** Markdown imported as text: `import text from "./file.md" with { type: "text" }` (Bun's text loader). */
declare module "*.md" {
  const text: string;
  export default text;
}
