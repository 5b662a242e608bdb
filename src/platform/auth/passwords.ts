// argon2id through Bun's built-in implementation (libargon2 compiled into the runtime).
const OPTIONS = { algorithm: "argon2id", memoryCost: 19456, timeCost: 2 } as const;

export const hashPassword = (password: string): Promise<string> => Bun.password.hash(password, OPTIONS);

// Verified against when the email is unknown, so both paths cost the same.
let dummyHash: Promise<string> | null = null;

export async function verifyPassword(password: string, hash: string | null | undefined): Promise<boolean> {
  if (!hash) {
    dummyHash ??= hashPassword("not-a-real-password-used-for-timing");
    await Bun.password.verify(password, await dummyHash).catch(() => false);
    return false;
  }
  return Bun.password.verify(password, hash).catch(() => false);
}

export const MIN_PASSWORD_LENGTH = 8;
