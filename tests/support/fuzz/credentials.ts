// Credentials the fuzzer sends: the fixture's real ones, and ones the service
// must refuse with 401 (none, garbage, expired, forged, `alg: none`).
import { SignJWT } from "jose";

export type Principal = { userId: string; token: string };

/** How a request authenticates: headers to add and query parameters to add. */
export type Credential = { label: string; headers: Record<string, string>; query: [string, string][] };

const b64url = (v: unknown) => Buffer.from(typeof v === "string" ? v : JSON.stringify(v)).toString("base64url");

function claimsOf(token: string): Record<string, unknown> {
  try {
    return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8"));
  } catch {
    return {};
  }
}

/** The refused kinds, built from a real principal's token (same sub and sid) and the service's secret. */
export async function badCredentials(real: Principal, other: Principal, secret: Uint8Array): Promise<Credential[]> {
  const claims = claimsOf(real.token);
  const now = Math.floor(Date.now() / 1000);
  const expired = await new SignJWT({ sid: claims.sid })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(real.userId)
    .setIssuer(String(claims.iss ?? "cusp"))
    .setAudience(String(claims.aud ?? "cusp-api"))
    .setIssuedAt(now - 7200)
    .setExpirationTime(now - 3600)
    .sign(secret);
  const wrongKey = await new SignJWT({ sid: claims.sid })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(real.userId)
    .setIssuer(String(claims.iss ?? "cusp"))
    .setAudience(String(claims.aud ?? "cusp-api"))
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(new TextEncoder().encode("not-the-service-secret-not-the-service-secret"));
  const payload = { ...claims, sub: real.userId, exp: now + 600 };
  const algNone = `${b64url({ alg: "none", typ: "JWT" })}.${b64url(payload)}.`;
  const algNoneUpper = `${b64url({ alg: "NONE", typ: "JWT" })}.${b64url(payload)}.`;
  const [h, , sig] = real.token.split(".");
  const tampered = `${h}.${b64url({ ...claims, sub: other.userId })}.${sig}`;
  const bearer = (label: string, token: string): Credential => ({ label, headers: { authorization: `Bearer ${token}` }, query: [] });
  return [
    { label: "none", headers: {}, query: [] },
    bearer("garbage", "garbage"),
    bearer("empty bearer", ""),
    bearer("three dots", "a.b.c"),
    bearer("huge garbage", "x".repeat(16_000)),
    { label: "basic auth", headers: { authorization: "Basic YWRtaW5AZXhhbXBsZS5jb206YWRtaW4tcGFzc3dvcmQ=" }, query: [] },
    { label: "token scheme", headers: { authorization: `Token ${real.token}` }, query: [] },
    bearer("expired (real key)", expired),
    bearer("wrong key", wrongKey),
    bearer("alg:none with a real sub", algNone),
    bearer("alg:NONE with a real sub", algNoneUpper),
    bearer("tampered payload", tampered),
    bearer("truncated signature", real.token.slice(0, -4)),
    { label: "garbage ?access_token", headers: {}, query: [["access_token", algNone]] },
    { label: "X-User-Id without a token", headers: { "x-user-id": real.userId }, query: [] },
  ];
}
