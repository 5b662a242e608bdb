// A file the service made (a PDF, a picture) as a response: shown inline or
// downloaded under a safe name, never kept by a shared cache, never sniffed
// as another type. An SVG may carry no script: its policy allows only its own
// inline styles.

const SAFE_NAME = /[^A-Za-z0-9._-]/g;

export type FileAnswer = {
  type: "application/pdf" | "image/png" | "image/svg+xml";
  fileName: string;
  disposition?: "inline" | "attachment";
};

export function fileAnswer(body: Uint8Array<ArrayBuffer> | string, f: FileAnswer): Response {
  const headers: Record<string, string> = {
    "content-type": f.type === "image/svg+xml" ? "image/svg+xml; charset=utf-8" : f.type,
    "content-disposition": `${f.disposition ?? "inline"}; filename="${f.fileName.replace(SAFE_NAME, "_")}"`,
    "cache-control": "private, no-store",
    "x-content-type-options": "nosniff",
  };
  if (f.type === "image/svg+xml") headers["content-security-policy"] = "default-src 'none'; style-src 'unsafe-inline'";
  return new Response(body, { headers });
}
