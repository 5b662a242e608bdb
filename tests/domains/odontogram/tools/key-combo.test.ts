import { describe, expect, test } from "bun:test";
import { normaliseKeyCombo } from "@/domains/odontogram/tools/key-combo";

describe("normaliseKeyCombo", () => {
  const valid: [string, string][] = [
    ["Ctrl+Shift+K", "Ctrl+Shift+K"],
    ["shift+ctrl+k", "Ctrl+Shift+K"],
    [" Shift + Control + k ", "Ctrl+Shift+K"],
    ["cmd+option+shift+ctl+f1", "Ctrl+Alt+Shift+Meta+F1"],
    ["Win+Alt+Del", "Alt+Meta+Delete"],
    ["super+esc", "Meta+Escape"],
    ["k", "K"],
    ["7", "7"],
    ["F24", "F24"],
    ["ctrl+/", "Ctrl+/"],
    ["Alt+-", "Alt+-"],
    ["ctrl+plus", "Ctrl+Plus"],
    ["Shift+up", "Shift+ArrowUp"],
    ["pgdn", "PageDown"],
    ["Ctrl+Space", "Ctrl+Space"],
  ];
  for (const [input, out] of valid) test(`"${input}" -> ${out}`, () => expect(normaliseKeyCombo(input)).toBe(out));

  const invalid = [
    "",
    "Ctrl+",
    "+K",
    "Ctrl+Shift",
    "Ctrl++",
    "K+J",
    "Ctrl+Ctrl+K",
    "Control+Ctrl+K",
    "Hyper+K",
    "F0",
    "F25",
    "Ctrl+KK",
    "Ctrl+é",
    "Ctrl Shift K",
  ];
  for (const input of invalid) test(`"${input}" is not a key combination`, () => expect(normaliseKeyCombo(input)).toBeNull());
});
