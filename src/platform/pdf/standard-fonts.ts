// Text for pdf-lib's standard fonts (Helvetica and the like), which encode
// WinAnsi only: what a renderer draws goes through here, so a name in another
// script never makes drawing throw. Used by every PDF the service lays out
// (statements, claim forms).

/**
 * `text` as the font can draw it (`charset`: its character set's code
 * points): line breaks and tabs as spaces, a character it cannot encode as
 * its unaccented letter when that can be drawn, else "?".
 */
export function encodable(text: string, charset: ReadonlySet<number>): string {
  let out = "";
  for (const ch of text.normalize("NFC").replace(/[\r\n\t]+/g, " ")) {
    const cp = ch.codePointAt(0)!;
    if (charset.has(cp)) out += ch;
    else {
      const base = ch.normalize("NFD").replace(/\p{M}/gu, "");
      out += base && [...base].every((c) => charset.has(c.codePointAt(0)!)) ? base : "?";
    }
  }
  return out;
}
