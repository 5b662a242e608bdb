// Preloaded by bun test (bunfig.toml): quiet logs, and argon2 cheap enough for tests
// is NOT done here: tests exercise the real password hashing.
process.env.LOG_LEVEL ??= "silent";
