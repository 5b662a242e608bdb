import { SignJWT, jwtVerify, errors as joseErrors } from "jose";

export type AccessClaims = { sub: string; sid: string; exp: number };

/** Access tokens are HS256 JWTs naming the user (sub) and the login session (sid). */
export class TokenSigner {
  constructor(
    private readonly secret: Uint8Array,
    readonly accessTtlSeconds: number,
  ) {}

  async issue(userId: string, sessionId: string): Promise<string> {
    return new SignJWT({ sid: sessionId })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(userId)
      .setIssuedAt()
      .setIssuer("cusp")
      .setAudience("cusp-api")
      .setExpirationTime(Math.floor(Date.now() / 1000) + this.accessTtlSeconds)
      .setJti(Bun.randomUUIDv7())
      .sign(this.secret);
  }

  /** Null for any token that is malformed, forged, expired or of another issuer. */
  async verify(token: string): Promise<AccessClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.secret, { issuer: "cusp", audience: "cusp-api", algorithms: ["HS256"] });
      if (typeof payload.sub !== "string" || typeof payload.sid !== "string" || typeof payload.exp !== "number") return null;
      return { sub: payload.sub, sid: payload.sid, exp: payload.exp };
    } catch (err) {
      if (err instanceof joseErrors.JOSEError || err instanceof TypeError) return null;
      throw err;
    }
  }
}
