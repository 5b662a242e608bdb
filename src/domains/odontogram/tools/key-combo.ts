// Key combinations such as "Ctrl+Shift+K": parsed case-insensitively, returned in
// one canonical spelling so that "shift+ctrl+k" and "Ctrl+Shift+K" are the same
// binding (uniqueness and owner resolution compare the normalised text).

const MODIFIERS: Record<string, string> = {
  ctrl: "Ctrl",
  control: "Ctrl",
  ctl: "Ctrl",
  alt: "Alt",
  option: "Alt",
  opt: "Alt",
  shift: "Shift",
  meta: "Meta",
  cmd: "Meta",
  command: "Meta",
  super: "Meta",
  win: "Meta",
};
const MODIFIER_ORDER = ["Ctrl", "Alt", "Shift", "Meta"];

const NAMED_KEYS: Record<string, string> = Object.fromEntries([
  ...[
    "Space",
    "Enter",
    "Tab",
    "Escape",
    "Backspace",
    "Delete",
    "Insert",
    "Home",
    "End",
    "PageUp",
    "PageDown",
    "ArrowUp",
    "ArrowDown",
    "ArrowLeft",
    "ArrowRight",
    "Plus",
    "Minus",
  ].map((k) => [k.toLowerCase(), k]),
  ["esc", "Escape"],
  ["del", "Delete"],
  ["ins", "Insert"],
  ["return", "Enter"],
  ["pgup", "PageUp"],
  ["pgdn", "PageDown"],
  ["up", "ArrowUp"],
  ["down", "ArrowDown"],
  ["left", "ArrowLeft"],
  ["right", "ArrowRight"],
]);
const PUNCTUATION = new Set(["`", "-", "=", "[", "]", "\\", ";", "'", ",", ".", "/"]);

function keyName(token: string): string | null {
  if (/^[a-z0-9]$/i.test(token)) return token.toUpperCase();
  if (PUNCTUATION.has(token)) return token;
  const f = /^f([1-9]|1[0-9]|2[0-4])$/i.exec(token);
  if (f) return `F${f[1]}`;
  return NAMED_KEYS[token.toLowerCase()] ?? null;
}

/**
 * The canonical spelling of a key combination (modifiers Ctrl, Alt, Shift, Meta
 * in that order, then exactly one key), or null when it is not one.
 */
export function normaliseKeyCombo(input: string): string | null {
  const tokens = input.split("+").map((s) => s.trim());
  if (tokens.some((s) => s === "")) return null;
  const mods = new Set<string>();
  let key: string | null = null;
  for (const token of tokens) {
    const mod = MODIFIERS[token.toLowerCase()];
    if (mod) {
      if (mods.has(mod)) return null;
      mods.add(mod);
      continue;
    }
    if (key !== null) return null;
    key = keyName(token);
    if (key === null) return null;
  }
  if (key === null) return null;
  return [...MODIFIER_ORDER.filter((m) => mods.has(m)), key].join("+");
}
