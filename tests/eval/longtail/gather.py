"""Builds the long-tail development corpus from mirrors of public test suites.

usage: gather.py CACHE [--mirrors DIR]

The mirrors are bare git repositories at DIR/<owner>+<name>/repo (default: $QUIRE_MIRRORS or
/work/.mirror). Every document of a type quire reads is written to CACHE/files/<source>/…, and
CACHE/manifest.jsonl gets one record per document:

  {"path": "files/…", "source": "pandoc", "type": "docx", "origin": "<repo>:<path>",
   "expected": "expected/….txt" | null, "optional": "expected/….optional.txt" | null,
   "verdict": "valid" | "invalid: <why>" | "either"}

`optional` (or null) is text the source lists apart from the body, which the document may or
may not show: the document properties in pandoc's native metadata (title, author, date,
keywords, custom properties), for every pandoc document with a Meta block, and the strings of
the AST's attribute pairs (a link's or image's target and title, key-value attributes) and
raw blocks (LaTeX, OOXML, HTML passed through): pandoc's writers put some of them into the
document as text (an image without alt text gets its file name, and its `fig:` title, as the
picture's description; raw OOXML is slide content), and raw LaTeX in a Markdown source is
text to any reader but pandoc's.

`expected` is the text the source project says the document holds, when it ships one:
pandoc's native AST beside a reader test or in front of a writer test (its Str, Code, Math
strings), html5lib's expected DOM trees (text nodes outside head, script, style, template),
CommonMark's expected HTML, csv-spectrum's parsed records, docling's and markitdown's expected
Markdown, and the text of chardet's samples decoded with the encoding their folder names.

`verdict` says what the source (or an independent reader, see `judge`) says about the file:
"invalid" files may fail to convert without counting against quire; a missing source is skipped.
Documents are never committed; re-run this script to rebuild the cache.
"""

import argparse
import hashlib
import html.parser
import io
import json
import os
import re
import subprocess
import sys
import zipfile
import zlib

# Extension -> quire's type name (quire detects by content; this only groups the figures).
TYPES = {
    "docx": "docx", "pptx": "pptx", "pptm": "pptm", "potx": "potx", "potm": "potm",
    "xlsx": "xlsx", "xlsm": "xlsm", "xlsb": "xlsb", "xls": "xls", "ods": "ods",
    "csv": "csv", "tsv": "csv", "txt": "txt", "md": "md", "markdown": "md",
    "html": "html", "htm": "html", "xhtml": "html", "xml": "xml", "json": "json", "rtf": "rtf",
}
OOXML = {"docx", "pptx", "pptm", "potx", "potm", "xlsx", "xlsm", "xlsb"}
MAX_BYTES = 30 * 1024 * 1024


class Mirror:
    def __init__(self, root: str, name: str):
        self.name = name
        self.git = os.path.join(root, name, "repo")
        self.ok = os.path.isdir(self.git)

    def _run(self, *args: str) -> bytes:
        return subprocess.run(["git", "--git-dir", self.git, *args], check=True,
                              capture_output=True).stdout

    def files(self, rev: str = "HEAD") -> list[tuple[str, int]]:
        out = self._run("ls-tree", "-r", "-l", "-z", rev).decode("utf-8", "replace")
        res = []
        for rec in out.split("\0"):
            if not rec:
                continue
            meta, path = rec.split("\t", 1)
            parts = meta.split()
            if parts[1] != "blob" or not parts[3].isdigit():  # absent from the snapshot
                continue
            res.append((path, int(parts[3])))
        return res

    def blobs(self, paths: list[str], rev: str = "HEAD") -> dict[str, bytes]:
        """Many blobs in one `git cat-file --batch` process."""
        if not paths:
            return {}
        req = "".join(f"{rev}:{p}\n" for p in paths).encode()
        out = subprocess.run(["git", "--git-dir", self.git, "cat-file", "--batch"], input=req,
                             capture_output=True, check=True).stdout
        res, pos = {}, 0
        for p in paths:
            nl = out.index(b"\n", pos)
            header = out[pos:nl].split()
            pos = nl + 1
            if len(header) < 3 or header[1] == b"missing":
                continue
            size = int(header[2])
            res[p] = out[pos:pos + size]
            pos += size + 1
        return res

    def blob(self, path: str, rev: str = "HEAD") -> bytes | None:
        return self.blobs([path], rev).get(path)


# ---------------------------------------------------------------- expected text helpers

HS_NAMED = {"NUL": 0, "SOH": 1, "STX": 2, "ETX": 3, "EOT": 4, "ENQ": 5, "ACK": 6, "BEL": 7,
            "BS": 8, "HT": 9, "LF": 10, "VT": 11, "FF": 12, "CR": 13, "SO": 14, "SI": 15,
            "DLE": 16, "ESC": 27, "DEL": 127, "SP": 32}


def hs_unescape(s: str) -> str:
    """A Haskell string literal's body (as `show` writes it) to text."""
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        i += 1
        c = s[i]
        if c.isdigit():
            j = i
            while j < len(s) and s[j].isdigit():
                j += 1
            out.append(chr(int(s[i:j])))
            i = j
        elif c == "x":
            j = i + 1
            while j < len(s) and s[j] in "0123456789abcdefABCDEF":
                j += 1
            out.append(chr(int(s[i + 1:j], 16)))
            i = j
        elif c == "&":
            i += 1
        elif c in "ntr\\\"'":
            out.append({"n": "\n", "t": "\t", "r": "\r"}.get(c, c))
            i += 1
        else:
            for name, code in sorted(HS_NAMED.items(), key=lambda kv: -len(kv[0])):
                if s.startswith(name, i):
                    out.append(chr(code))
                    i += len(name)
                    break
            else:
                out.append(c)
                i += 1
    return "".join(out)


NATIVE_TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"|([A-Za-z_][A-Za-z0-9_]*)|([()\[\]])', re.S)


def native_text(native: str, joining: set[str] | None = None) -> str:
    """The visible text of a pandoc native AST: Str, Code, CodeBlock and Math strings."""
    JOINING = joining or globals()["JOINING"]  # noqa: N806
    toks = [(m.group(1), m.group(2), m.group(3)) for m in NATIVE_TOKEN.finditer(native)]
    words, i, brackets = [], 0, []
    while i < len(toks):
        s, ident, punct = toks[i]
        if ident is not None and ident not in JOINING:
            words.append(" ")
        if punct == "[":  # a list opened by an inline wrapper (Emph [ … ]) runs on
            prev = toks[i - 1][1] if i else None
            brackets.append(prev in JOINING and prev != "Str")
            if not brackets[-1]:
                words.append(" ")
        elif punct == "]":
            if not (brackets.pop() if brackets else False):
                words.append(" ")
        elif punct in ("(", ")"):
            words.append(" ")
        if ident == "Str" and i + 1 < len(toks) and toks[i + 1][0] is not None:
            words.append(hs_unescape(toks[i + 1][0]))
            i += 2
            continue
        if ident in ("Math",) and i + 2 < len(toks) and toks[i + 2][0] is not None:
            words.append(" " + hs_unescape(toks[i + 2][0]) + " ")
            i += 3
            continue
        if ident in ("Code", "CodeBlock"):
            # skip the attribute tuple (balanced parentheses), then the content string
            j, depth = i + 1, 0
            while j < len(toks):
                p = toks[j][2]
                if p == "(":
                    depth += 1
                elif p == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            if j + 1 < len(toks) and toks[j + 1][0] is not None:
                # inline code runs on into the text beside it (`m` with a superscript 2 reads
                # "m2"); a code block is a block of its own
                pad = " " if ident == "CodeBlock" else ""
                words.append(pad + hs_unescape(toks[j + 1][0]) + pad)
                i = j + 2
                continue
        i += 1
    return "".join(words)


ATTR_PAIR = re.compile(r'\(\s*"((?:[^"\\]|\\.)*)"\s*,\s*"((?:[^"\\]|\\.)*)"\s*\)')


RAW = re.compile(r'Raw(?:Block|Inline)\s*\(\s*Format\s*"[^"]*"\s*\)\s*"((?:[^"\\]|\\.)*)"')


def native_attr_text(native: str) -> str:
    """The strings of a native AST's two-string tuples (link and image targets with their
    titles, key-value attributes) and of its raw blocks and inlines (LaTeX, OOXML, HTML
    passed through). Not reading text in pandoc's model, but they are in the document: a
    writer shows some (an image without alt text gets its file name as its description, raw
    OOXML is slide content) and a reader of the source format shows raw LaTeX as text."""
    pairs = " ".join(hs_unescape(a) + " " + hs_unescape(b) for a, b in ATTR_PAIR.findall(native))
    return pairs + " " + " ".join(hs_unescape(r) for r in RAW.findall(native))


def split_native(native: str) -> tuple[str, str]:
    """(metadata, body) of a pandoc native document: the `Meta {unMeta = …}` argument of
    `Pandoc` is the document's properties (title, author, date, keywords, custom properties),
    the rest its body. A bare block list has no metadata."""
    start = native.find("Pandoc")
    if start < 0:
        return "", native
    depth, begin = 0, None
    for m in NATIVE_TOKEN.finditer(native, start + len("Pandoc")):
        p = m.group(3)
        if p == "(":
            if depth == 0:
                begin = m.start()
            depth += 1
        elif p == ")":
            depth -= 1
            if depth == 0 and begin is not None:
                return native[begin:m.end()], native[m.end():]
        elif depth == 0 and (m.group(2) or p):
            break  # `Pandoc Meta {…}` without parentheses, or no metadata at all
    return "", native


# Inline wrappers: text on either side of them is one word when no Space separates it.
JOINING = {"Str", "Emph", "Strong", "Underline", "Strikeout", "Superscript", "Subscript",
           "SmallCaps", "Span", "Quoted", "SingleQuote", "DoubleQuote", "Cite", "Link", "Image",
           "Note", "Code", "Math", "InlineMath", "DisplayMath", "RawInline", "Format", "Meta",
           "MetaInlines", "MetaString", "Pandoc", "unMeta", "fromList", "Nothing", "Just"}
# In metadata, each value (an author of a list, a keyword) is words of its own.
META_JOINING = JOINING - {"MetaInlines", "MetaString", "fromList"}


class TextOf(html.parser.HTMLParser):
    """Text of an HTML fragment (CommonMark's expected output), skipping nothing. As for
    html5lib's trees, text inside inline elements runs on (`foo<strong>bar</strong>` is the
    word "foobar"); block elements and images stand apart."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data):
        self.parts.append(data)

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.parts.append(" " + (dict(attrs).get("alt") or "") + " ")
        elif tag in BLOCK:
            self.parts.append(" ")

    def handle_endtag(self, tag):
        if tag in BLOCK:
            self.parts.append(" ")


def html_text(fragment: str) -> str:
    p = TextOf()
    p.feed(fragment)
    p.close()
    return "".join(p.parts)


# Elements that start a new line when rendered (text nodes inside inline elements run on).
BLOCK = {"address", "article", "aside", "blockquote", "body", "br", "caption", "dd", "details",
         "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1",
         "h2", "h3", "h4", "h5", "h6", "header", "hr", "html", "img", "input", "legend", "li",
         "listing", "main", "menu", "nav", "ol", "option", "p", "plaintext", "pre", "section",
         "select", "summary", "table", "tbody", "td", "textarea", "tfoot", "th", "thead", "tr",
         "ul", "frameset", "frame", "object", "embed", "video", "audio", "svg", "math",
         "marquee", "center", "applet", "button", "hgroup", "search", "col", "colgroup"}
HIDDEN = {"head", "title", "script", "style", "template", "noscript", "noframes", "noembed",
          "iframe", "xmp"}


def html5lib_tests(dat: str):
    """(data, expected text) of every document test in a tree-construction .dat file."""
    for block in re.split(r"\n(?=#data\n)", "\n" + dat):
        block = block.lstrip("\n")
        if not block.startswith("#data\n"):
            continue
        sections, cur = {}, None
        for line in block.split("\n"):
            if line.startswith("#") and line[1:].replace("-", "").isalpha() and (
                    cur is None or line in ("#errors", "#document", "#document-fragment",
                                            "#script-on", "#script-off", "#new-errors")):
                cur = line[1:]
                sections[cur] = []
                continue
            if cur is not None:
                sections[cur].append(line)
        if "document-fragment" in sections or "document" not in sections or "script-on" in sections:
            continue
        data = "\n".join(sections["data"])
        texts, stack, in_text, buf, hidden_depth = [], [], False, [], None
        for line in sections["document"]:
            if in_text:
                buf.append(line)
                if line.endswith('"'):
                    in_text = False
                    if hidden_depth is None:
                        texts.append("\n".join(buf)[:-1])
                continue
            if not line.startswith("| "):
                continue
            body = line[2:]
            indent = (len(body) - len(body.lstrip(" "))) // 2
            body = body.strip(" ")
            while len(stack) > indent:
                if stack.pop() in BLOCK:
                    texts.append(" ")
            if hidden_depth is not None and indent <= hidden_depth:
                hidden_depth = None
            if body.startswith('"'):
                if len(body) >= 2 and body.endswith('"'):
                    if hidden_depth is None:
                        texts.append(body[1:-1])
                else:
                    in_text, buf = True, [body[1:]]
            elif body.startswith("<") and not body.startswith("<!"):
                name = body[1:-1].split(" ")[-1]
                stack.append(name)
                if name in BLOCK:
                    texts.append(" ")
                if hidden_depth is None and name in HIDDEN:
                    hidden_depth = indent
            elif body == "content":  # template contents
                if hidden_depth is None:
                    hidden_depth = indent
        yield data, "".join(texts)


# ---------------------------------------------------------------- independent verdicts


def judge(typ: str, data: bytes) -> str:
    """What an independent reader says: "valid", or "invalid: <why>" for a file that is not a
    readable document of its type (not a ZIP/OLE2 container, encrypted, not well-formed). Only
    such files may fail without counting against quire; the rule never looks at names."""
    if not data:
        return "invalid: empty file" if typ not in ("txt", "csv", "md") else "valid"
    if typ in OOXML:
        if data[:8] == b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1":
            if "EncryptionInfo".encode("utf-16-le") in data:
                return "invalid: encrypted package"
            return "invalid: OLE2 file, not an OOXML package"
        try:
            z = zipfile.ZipFile(io.BytesIO(data))
            names = set(z.namelist())
        except Exception:
            return "invalid: not a ZIP package"
        if "[Content_Types].xml" not in names:
            return "invalid: no [Content_Types].xml"
        try:
            bad = z.testzip()
        except Exception:
            bad = "?"
        if bad:
            return "invalid: damaged ZIP member"
        for n in names:
            if n.endswith((".xml", ".rels")):
                with z.open(n) as part:
                    if b"<!DOCTYPE" in part.read(4096):
                        return "invalid: a part declares a DTD (an entity-expansion test)"
        return "valid"
    if typ == "ods":
        try:
            z = zipfile.ZipFile(io.BytesIO(data))
            z.read("content.xml")
        except Exception:
            return "invalid: no readable content.xml"
        try:
            manifest = z.read("META-INF/manifest.xml")
        except Exception:
            manifest = b""
        if b"encryption-data" in manifest:
            return "invalid: encrypted package (the manifest gives its parts' encryption)"
        return "valid"
    if typ == "xls":
        if data[:8] != b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1":
            if data[:2] in (b"\x09\x00", b"\x09\x02", b"\x09\x04"):
                return "invalid: BIFF2-4 worksheet outside OLE2"
            return "invalid: not an OLE2 file"
        return xls_verdict(data)
    if typ == "rtf":
        head = data.lstrip(b"\xef\xbb\xbf \r\n\t")
        return "valid" if head.startswith(b"{\\rtf") else "invalid: does not start with {\\rtf"
    if typ == "json":
        try:
            json.loads(data.decode("utf-8-sig") if not data.startswith((b"\xff\xfe", b"\xfe\xff")) else data)
        except Exception as e:
            return f"invalid: not JSON ({type(e).__name__})"
        return "valid"
    if typ == "xml":
        import xml.parsers.expat
        p = xml.parsers.expat.ParserCreate()
        p.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
        try:
            p.Parse(data, True)
        except xml.parsers.expat.ExpatError as e:
            msg = xml.parsers.expat.ErrorString(e.code)
            if "undefined entity" in msg:
                return "valid"  # declared in an external DTD quire never fetches
            if "unknown encoding" in msg:
                return "valid"  # expat knows few encodings; quire's decoder knows WHATWG's
            return f"invalid: not well-formed XML ({msg})"
        except (ValueError, LookupError):
            return "valid"  # an encoding expat cannot read: no independent verdict
        return "valid"
    return "valid"


def xls_verdict(data: bytes) -> str:
    """olefile reads the container; a FILEPASS record (0x2F) before the globals' EOF means the
    workbook is encrypted."""
    import olefile
    try:
        ole = olefile.OleFileIO(data)
        name = next((n for n in ("Workbook", "Book", "WORKBOOK", "BOOK") if ole.exists(n)), None)
        if name is None:
            return "invalid: OLE2 file without a workbook stream"
        wb = ole.openstream(name).read()
    except Exception:
        return "invalid: damaged OLE2 container"
    pos = 0
    while pos + 4 <= len(wb):
        kind, size = int.from_bytes(wb[pos:pos + 2], "little"), int.from_bytes(wb[pos + 2:pos + 4], "little")
        if kind == 0x2F:
            return "invalid: encrypted workbook (FILEPASS)"
        if kind == 0x0A:
            break
        pos += 4 + size
    return "valid"


# ---------------------------------------------------------------- sources

ASIDE_PART = re.compile(r"word/(?:header|footer)\d*\.xml|word/comments\.xml")
WML_TEXT = re.compile(rb"<(?:\w+:)?t(?:\s[^>]*)?>([^<]*)</(?:\w+:)?t>|</(?:\w+:)?p>|<(?:\w+:)?tab/>")


def docx_aside_text(data: bytes) -> str:
    """The text of a DOCX's headers, footers and comments: optional expected text. The
    sources that ship expected text for DOCX model none of them (pandoc's reader drops headers
    and footers, and comments unless told to keep all changes; docling drops all three), so
    their expected text cannot say whether a converter should show them: quire shows header
    text once at the start, footer text once at the end and comments as notes, as Tika and
    POI's extractors do; docling and pandoc leave them out.

    >>> import io, zipfile
    >>> buf = io.BytesIO()
    >>> with zipfile.ZipFile(buf, "w") as z:
    ...     z.writestr("word/header1.xml", "<w:hdr><w:p><w:r><w:t>Run</w:t></w:r>"
    ...                "<w:r><w:t>ning</w:t></w:r></w:p><w:p><w:r><w:t>head</w:t></w:r></w:p></w:hdr>")
    ...     z.writestr("word/document.xml", "<w:p><w:r><w:t>body</w:t></w:r></w:p>")
    >>> docx_aside_text(buf.getvalue())
    'Running head '
    """
    import html as html_mod
    try:
        z = zipfile.ZipFile(io.BytesIO(data))
        names = [n for n in z.namelist() if ASIDE_PART.fullmatch(n)]
        parts = [z.read(n) for n in names]
    except Exception:
        return ""
    return " ".join("".join(html_mod.unescape(m.group(1).decode("utf-8", "replace"))
                            if m.group(1) is not None else " " for m in WML_TEXT.finditer(b))
                    for b in parts)



class Corpus:
    def __init__(self, cache: str):
        self.cache = cache
        self.records: list[dict] = []
        self.seen: set[str] = set()

    def add(self, source: str, typ: str, name: str, data: bytes, origin: str,
            expected: str | None = None, verdict: str | None = None,
            optional: str | None = None):
        if len(data) > MAX_BYTES:
            return
        digest = hashlib.sha1(data).hexdigest()
        if digest in self.seen:  # the same bytes in two suites count once
            return
        self.seen.add(digest)
        safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name)[-120:]
        rel = f"files/{source}/{typ}/{digest[:10]}_{safe}"
        path = os.path.join(self.cache, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        exp_rel = None
        if expected is not None:
            exp_rel = f"expected/{source}/{digest[:10]}.txt"
            ep = os.path.join(self.cache, exp_rel)
            os.makedirs(os.path.dirname(ep), exist_ok=True)
            with open(ep, "w", encoding="utf-8") as f:
                f.write(expected)
        opt_rel = None
        if expected is not None and typ == "docx":
            optional = (optional or "") + " " + docx_aside_text(data)
        if expected is not None and optional and optional.strip():
            opt_rel = f"expected/{source}/{digest[:10]}.optional.txt"
            with open(os.path.join(self.cache, opt_rel), "w", encoding="utf-8") as f:
                f.write(optional)
        self.records.append({
            "path": rel, "source": source, "type": typ, "origin": origin,
            "expected": exp_rel, "optional": opt_rel, "verdict": verdict or judge(typ, data),
        })


def ext_type(path: str) -> str | None:
    base = os.path.basename(path).lower()
    if "." not in base:
        return None
    return TYPES.get(base.rsplit(".", 1)[1])


def by_extension(corpus: Corpus, m: Mirror, source: str, keep) -> None:
    paths = [(p, t) for p, _ in m.files() if (t := ext_type(p)) and keep(p)]
    blobs = m.blobs([p for p, _ in paths])
    for p, t in paths:
        if p in blobs:
            corpus.add(source, t, p, blobs[p], f"{m.name}:{p}")


READER_TEST = re.compile(r'testCompare(?:WithOpts\s*(def\s*\{[^}]*\}|\w+))?\s+"(?:[^"\\]|\\.)*"'
                         r'\s+"([^"\s]+\.docx)"\s+"([^"\s]+\.native)"')


def reader_pairs(src: str) -> dict[str, str]:
    """Document -> native of pandoc's DOCX reader tests, each document paired with the test
    that reads it as quire does: the default options first, else all changes shown (its
    deleted text is dropped by `drop_deleted`, leaving the accepted text and the comments),
    else changes accepted. A test under other options — changes rejected, or an extension
    that changes what is read (`+citations` turns a bibliography field into citation data,
    `+styles` adds style spans) — describes another reading and is never the expected text.
    (Pairing each document with the last native named after it took `track_changes_move`'s
    all-changes native, its moved text twice, and `mendeley_citations`' `+citations` one.)

    >>> src = '''testCompare "a" "docx/x.docx" "docx/x.native"
    ...   , testCompareWithOpts def{readerTrackChanges=RejectChanges} "r" "docx/y.docx" "docx/y_r.native"
    ...   , testCompareWithOpts def{readerTrackChanges=AcceptChanges} "a" "docx/y.docx" "docx/y_a.native"
    ...   , testCompareWithOpts def{readerTrackChanges=AllChanges} "l" "docx/y.docx" "docx/y_l.native"
    ...   , testCompareWithOpts def{readerExtensions =
    ...        extensionsFromList [Ext_citations]} "c" "docx/x.docx" "docx/x_plus.native"'''
    >>> sorted(reader_pairs(src).items())
    [('test/docx/x.docx', 'test/docx/x.native'), ('test/docx/y.docx', 'test/docx/y_l.native')]
    """
    best: dict[str, tuple[int, str]] = {}
    for m in READER_TEST.finditer(src):
        opts, doc, native = m.group(1) or "", m.group(2), m.group(3)
        rank = {"": 0, "defopts": 0, "def": 0}.get(opts.strip())
        if rank is None:
            inner = re.sub(r"\s+", "", opts)
            rank = {"def{readerTrackChanges=AllChanges}": 1,
                    "def{readerTrackChanges=AcceptChanges}": 2,
                    "def{readerStandalone=True}": 3}.get(inner)
        if rank is not None and (doc not in best or rank < best[doc][0]):
            best[doc] = (rank, native)
    return {"test/" + d: "test/" + n for d, (_, n) in best.items()}


DELETION = re.compile(r'Span\s*\(\s*"(?:[^"\\]|\\.)*"\s*,\s*\[\s*"deletion"\s*\]')


def drop_deleted(native: str) -> str:
    """A native without its tracked deletions (`Span ("", ["deletion"], …) […]`): text a
    document holds as deleted, which Word shows struck through and every reading that
    accepts the changes leaves out; pandoc's all-changes natives and the writer tests built
    from them (golden/track_changes_*.docx) keep it as a span.

    >>> drop_deleted('[Str "a",Span ("",["deletion"],[("author","J")]) [Str "gone",Space],Str "b"]')
    '[Str "a", ,Str "b"]'
    """
    out, pos = [], 0
    for m in DELETION.finditer(native):
        if m.start() < pos:
            continue
        depth, end, opened = 0, None, 0
        for t in NATIVE_TOKEN.finditer(native, m.end()):
            p = t.group(3)
            if p in ("(", "["):
                depth += 1
            elif p in (")", "]"):
                depth -= 1
                if depth < 0:  # the tuple's own closing parenthesis
                    depth = 0
                    opened += 1
                elif depth == 0 and p == "]" and opened:
                    end = t.end()
                    break
        if end is None:
            continue
        out.append(native[pos:m.start()] + " ")
        pos = end
    out.append(native[pos:])
    return "".join(out)


def pandoc(corpus: Corpus, m: Mirror) -> None:
    files = {p for p, _ in m.files()}
    pairs: dict[str, str] = {}  # document -> native
    # writer tests: the Haskell test files name "<input>.native" then "<golden>"
    # writer tests name "<input>.native" then "<golden>"; reader tests "<input>" then ".native"
    for hs in ("test/Tests/Writers/Docx.hs", "test/Tests/Writers/Powerpoint.hs",
               "test/Tests/Readers/Docx.hs"):
        src = (m.blob(hs) or b"").decode()
        # a reference document (`writerReferenceDoc = Just "x.docx"`, a file read for its
        # styles) is a template for the writer, not the golden output of the native before it
        refs = set(re.findall(r'(?:Just|readFile|referenceDoc\s*=)\s*"([^"\s]+\.(?:docx|pptx))"',
                              src))
        strings = [s for s in re.findall(r'"([^"\s]+\.(?:native|docx|pptx))"', src)
                   if s not in refs]
        if "Readers" in hs:
            pairs.update(reader_pairs(src))
            continue
        for a, b in zip(strings, strings[1:]):
            if a.endswith(".native") and not b.endswith(".native"):
                pairs["test/" + b] = "test/" + a
                if b.endswith("/output.pptx"):
                    pairs["test/" + b.replace("/output.pptx", "/templated.pptx")] = "test/" + a
    for p in files:  # the RTF reader's golden tests: test/rtf/X.rtf beside X.native
        stem, ext = os.path.splitext(p)
        if p.startswith("test/rtf/") and ext == ".rtf" and stem + ".native" in files:
            pairs[p] = stem + ".native"
    # writers' golden outputs of writer.native and tables.native, readers' inputs
    golden = {"html4": "html", "html5": "html", "rtf": "rtf", "markdown": "md", "plain": "txt",
              "jats_archiving": "xml", "jats_articleauthoring": "xml", "jats_publishing": "xml",
              "docbook5": "xml", "tei": "xml", "opml": "xml"}
    named: dict[str, tuple[str, str]] = {}
    for p in files:
        d, base = os.path.split(p)
        stem, _, ext = base.rpartition(".")
        if d in ("test", "test/tables") and ext in golden and f"{d}/{stem}.native" in files:
            named[p] = (golden[ext], f"{d}/{stem}.native")
    readers = {"test/html-reader.html": ("html", "test/html-reader.native"),
               "test/jats-reader.xml": ("xml", "test/jats-reader.native"),
               "test/docbook-reader.docbook": ("xml", "test/docbook-reader.native"),
               "test/docbook-chapter.docbook": ("xml", "test/docbook-chapter.native"),
               "test/endnotexml-reader.xml": ("xml", "test/endnotexml-reader.native"),
               "test/opml-reader.opml": ("xml", "test/opml-reader.native"),
               "test/testsuite.txt": ("md", "test/testsuite.native"),
               "test/markdown-reader-more.txt": ("md", "test/markdown-reader-more.native"),
               "test/pipe-tables.txt": ("md", "test/pipe-tables.native"),
               "test/markdown-citations.txt": ("md", "test/markdown-citations.native")}
    named.update({k: v for k, v in readers.items() if k in files and v[1] in files})
    for p, native in pairs.items():
        if p in files:
            named[p] = (ext_type(p), native)
    blobs = m.blobs(sorted(set(named) | {n for _, n in named.values()}))
    for p, (t, native) in sorted(named.items()):
        if p in blobs and native in blobs:
            meta, body = split_native(blobs[native].decode())
            body = drop_deleted(body)
            corpus.add("pandoc", t, p + ("" if ext_type(p) else "." + {"md": "md"}.get(t, t)),
                       blobs[p], f"{m.name}:{p}", native_text(body),
                       optional=native_text(meta, META_JOINING) + " " + native_attr_text(body))
    # every other document in the test tree, without expected text
    rest = [p for p in sorted(files) if p.startswith("test/") and ext_type(p) and p not in named]
    for p, data in m.blobs(rest).items():
        corpus.add("pandoc", ext_type(p), p, data, f"{m.name}:{p}")


def html5lib(corpus: Corpus, m: Mirror) -> None:
    rev = m._run("log", "-1", "--format=%H", "HEAD", "--", "tree-construction").decode().strip()
    rev = rev + "^" if rev else "HEAD"
    dats = [p for p, _ in m.files(rev) if p.startswith("tree-construction/") and p.endswith(".dat")]
    for p, data in m.blobs(dats, rev).items():
        for k, (doc, text) in enumerate(html5lib_tests(data.decode("utf-8"))):
            corpus.add("html5lib", "html", f"{os.path.basename(p)}_{k}.html", doc.encode("utf-8"),
                       f"{m.name}:{p}#{k}", text)
    encs = [p for p, _ in m.files() if p.startswith("encoding/") and p.endswith(".dat")]
    for p, data in m.blobs(encs).items():
        for k, block in enumerate(re.split(rb"\n(?=#data\n)", b"\n" + data)):
            block = block.lstrip(b"\n")
            if block.startswith(b"#data\n") and b"\n#encoding" in block:
                doc = block[6:block.index(b"\n#encoding")]
                corpus.add("html5lib", "html", f"{os.path.basename(p)}_{k}.html", doc,
                           f"{m.name}:{p}#{k}")


def commonmark(corpus: Corpus, m: Mirror) -> None:
    spec = (m.blob("spec.txt") or b"").decode("utf-8")
    fence = "`" * 32
    for k, mt in enumerate(re.finditer(
            rf"^{fence} example[^\n]*\n(.*?)^\.\n(.*?)^{fence}$", spec, re.S | re.M)):
        md = mt.group(1).replace("→", "\t")
        out = mt.group(2).replace("→", "\t")
        corpus.add("commonmark", "md", f"example_{k + 1}.md", md.encode("utf-8"),
                   f"{m.name}:spec.txt#example-{k + 1}", html_text(out))


def csv_spectrum(corpus: Corpus, m: Mirror) -> None:
    for p, _ in m.files():
        if p.startswith("csvs/") and p.endswith(".csv"):
            stem = os.path.basename(p)[:-4]
            data, exp = m.blob(p), m.blob(f"json/{stem}.json")
            text = None
            if exp is not None:
                recs = json.loads(exp)
                recs = recs if isinstance(recs, list) else [recs]
                keys = list(recs[0].keys()) if recs and isinstance(recs[0], dict) else []
                vals = [v for r in recs for v in (r.values() if isinstance(r, dict) else [r])]
                text = " ".join(map(str, keys + vals))
            corpus.add("csv-spectrum", "csv", p, data, f"{m.name}:{p}", text)


def json_suite(corpus: Corpus, m: Mirror) -> None:
    paths = [p for p, _ in m.files() if p.startswith("test_parsing/") and p.endswith(".json")]
    for p, data in m.blobs(paths).items():
        base = os.path.basename(p)
        verdict = {"y": "valid", "n": "invalid: the suite says parsers must reject it",
                   "i": "either"}[base[0]]
        corpus.add("JSONTestSuite", "json", p, data, f"{m.name}:{p}", None, verdict)


def chardet(corpus: Corpus, m: Mirror) -> None:
    paths = [(p, t) for p, _ in m.files() if p.startswith("tests/") and (t := ext_type(p))
             and p.count("/") == 2]
    blobs = m.blobs([p for p, _ in paths])
    for p, t in paths:
        label = p.split("/")[1]
        data = blobs.get(p)
        if data is None:
            continue
        text = None
        if t == "txt":
            codec = re.sub(r"-(croatian|czech|hungarian|polish|slovak|slovene|bulgarian|russian"
                           r"|arabic|greek|turkish|romanian)$", "", label)
            try:
                text = data.decode(codec)
            except (LookupError, UnicodeDecodeError):
                text = None
        corpus.add("chardet", t, f"{label}_{os.path.basename(p)}", data, f"{m.name}:{p}", text)


def md_expected(corpus: Corpus, m: Mirror, source: str, docs: list[str], expected_of) -> None:
    files = {p for p, _ in m.files()}
    blobs = m.blobs(docs)
    for p in docs:
        exp = expected_of(p, files)
        text = None
        if exp:
            raw = (m.blob(exp) or b"").decode("utf-8", "replace")
            text = re.sub(r"\(data:[^)]*\)", "", raw)
        if p in blobs:
            corpus.add(source, ext_type(p), p, blobs[p], f"{m.name}:{p}", text)


def docling(corpus: Corpus, m: Mirror) -> None:
    docs = [p for p, _ in m.files() if p.startswith("tests/data/") and ext_type(p)
            and "/groundtruth/" not in p and ext_type(p) != "json"]

    def expected_of(p, files):
        base = os.path.basename(p)
        fmt_dir = p.split("/")[2]
        for cand in (f"tests/data/{fmt_dir}/groundtruth/{base}.md",
                     f"tests/data/groundtruth/docling_v2/{base}.md"):
            if cand in files:
                return cand
        return None
    md_expected(corpus, m, "docling", docs, expected_of)


def markitdown(corpus: Corpus, m: Mirror) -> None:
    docs = [p for p, _ in m.files() if "/tests/test_files/" in p and ext_type(p)
            and "/expected_outputs/" not in p]

    def expected_of(p, files):
        # expected_outputs/<stem>.md are the outputs of the PDFs of that stem only
        return None
    md_expected(corpus, m, "markitdown", docs, expected_of)


# xlsx2csv's regression cases (test/run) whose options leave the cells' text as the workbook
# shows it: their expected CSV is the text. Cases run with options that rewrite values
# (--dateformat, --floatformat, --ignore-percentage, -e escapes, --hyperlinks, custom sheet
# delimiters) and files test/run never checks are left out, and so are workbooks of several
# sheets converted without -a: their CSV holds the first sheet only. The sheet names are
# optional text (a converter may or may not show them; xlsx2csv -a prints them between sheets).
XLSX2CSV_CASES = {"empty_row": False, "junk-small": False, "last-column-empty": False,
                  "sheets": True, "skip_empty_lines": False, "twolettercolumns": False,
                  "xlsx2csv-test-file": False, "namespace": False, "float": False,
                  "utf8": False, "no_cell_ids": False, "sheets_order": True,
                  "formatted_inline_string": False, "percentage": False}


def xlsx_sheet_names(data: bytes) -> list[str]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            wb = z.read("xl/workbook.xml").decode("utf-8", "replace")
    except (zipfile.BadZipFile, KeyError):
        return []
    return [html.unescape(n) for n in re.findall(r"<(?:\w+:)?sheet\b[^>]*?\bname=\"([^\"]*)\"", wb)]


def xlsx2csv(corpus: Corpus, m: Mirror) -> None:
    import csv
    names = {p for p, _ in m.files()}
    for case, all_sheets in XLSX2CSV_CASES.items():
        ext = "xlsm" if f"test/{case}.xlsm" in names else "xlsx"
        p = f"test/{case}.{ext}"
        data, exp = m.blob(p), m.blob(f"test/{case}.csv")
        if data is None or exp is None:
            continue
        sheets = xlsx_sheet_names(data)
        if len(sheets) > 1 and not all_sheets:
            continue
        rows = csv.reader(io.StringIO(exp.decode("utf-8").replace("\r", "")))
        text = " ".join(f for r in rows for f in r)
        corpus.add("xlsx2csv", ext, p, data, f"{m.name}:{p}", text, optional=" ".join(sheets))

# SheetJS's test files: workbooks (its own, at the top level) and the copies Excel made of
# other projects' workbooks (`2011/<name>.xml`: Excel 2011's XML Spreadsheet 2003; `2013/<name>
# .xlsb`), each beside a baseline Excel wrote of the original, one CSV per sheet
# (`2011/<name>.<i>.csv`, else `2016/…`; none for a chart sheet): the cells as Excel shows them. A copy's cells are the
# original's, so the original's baseline is the copy's expected text. The sheet names
# (`<name>.sheetnames`) are optional text. Excel wrote some CSVs in a single-byte code page.
SHEETJS_COPY = re.compile(r"(?:2011|2013)/(.+)\.(?:xml|xlsb)")


def sheetjs(corpus: Corpus, m: Mirror) -> None:
    import csv
    names = {p for p, _ in m.files()}
    # the snapshot lists some large files without their content: a workbook whose baseline
    # is one of them has no complete expected text
    listed = set(m._run("ls-tree", "-r", "--name-only", "-z", "HEAD").decode(
        "utf-8", "replace").split("\0"))
    absent = listed - names

    def decode(b: bytes) -> str:
        """UTF-8, else the single-byte code page whose letters read as words: Excel wrote
        some baselines in Windows-1252 (`serviços`), some in Mac Roman; a letter of the right
        one takes the case of the letters around it (`serviÁos` is Mac Roman misread)."""
        try:
            return b.decode("utf-8-sig")
        except UnicodeDecodeError:
            pass

        def fit(text: str) -> int:
            return sum(1 for i in range(1, len(text) - 1) if ord(text[i]) > 127
                       and text[i].isalpha() and text[i - 1].isalpha()
                       and text[i].islower() == text[i - 1].islower())
        return max((b.decode(cp, "replace") for cp in ("cp1252", "mac_roman")), key=fit)

    sheet_csv = re.compile(r"(?:2011|2016)/(.+)\.(\d+)\.csv")
    most: dict[str, int] = {}
    for n in listed:
        if (mt := sheet_csv.fullmatch(n)):
            most[mt.group(1)] = max(most.get(mt.group(1), 0), int(mt.group(2)) + 1)
    docs = []
    for p in sorted(names):
        if "/" in p and not SHEETJS_COPY.fullmatch(p):
            continue
        if ext_type(p) not in ("xls", "xlsx", "xlsm", "xlsb", "xml", "ods"):
            continue
        orig = SHEETJS_COPY.fullmatch(p).group(1) if "/" in p else p
        # Excel writes no CSV for a chart sheet: sheet i's baseline is 2011's, else 2016's
        sheets = [c for i in range(min(most.get(orig, 0), 1000))
                  if (c := next((f"{y}/{orig}.{i}.csv" for y in ("2011", "2016")
                                 if f"{y}/{orig}.{i}.csv" in names), None))]
        if any(f"{y}/{orig}.{i}.csv" in absent for y in ("2011", "2016")
               for i in range(most.get(orig, 0) + 1)):
            continue
        if sheets:
            sheet_names = [f"{y}/{orig}.sheetnames" for y in ("2011", "2016")]
            docs.append((p, sheets, next((n for n in sheet_names if n in names), sheet_names[0])))
    blobs = m.blobs([p for p, _, _ in docs] + [c for _, cs, _ in docs for c in cs]
                    + [n for _, _, n in docs])
    for p, sheets, names_file in docs:
        if p not in blobs or not all(c in blobs for c in sheets):
            continue
        text = " ".join(f for c in sheets
                        for r in csv.reader(io.StringIO(decode(blobs[c]).replace("\r", "\n")))
                        for f in r)
        optional = decode(blobs.get(names_file, b"")).replace("\n", " ")
        corpus.add("sheetjs", ext_type(p), p, blobs[p], f"{m.name}:{p}", text,
                   optional=optional)


SOURCES = [
    ("jgm+pandoc", "pandoc", pandoc),
    ("html5lib+html5lib-tests", "html5lib", html5lib),
    ("commonmark+commonmark-spec", "commonmark", commonmark),
    ("max-mapper+csv-spectrum", "csv-spectrum", csv_spectrum),
    ("nst+JSONTestSuite", "JSONTestSuite", json_suite),
    ("chardet+chardet", "chardet", chardet),
    ("docling-project+docling", "docling", docling),
    ("microsoft+markitdown", "markitdown", markitdown),
    ("apache+poi", "poi", lambda c, m: by_extension(
        c, m, "poi", lambda p: p.startswith("test-data/"))),
    ("apache+tika", "tika", lambda c, m: by_extension(
        c, m, "tika", lambda p: "/src/test/resources/test-documents/" in p and "/mock/" not in p)),
    ("Unstructured-IO+unstructured", "unstructured", lambda c, m: by_extension(
        c, m, "unstructured", lambda p: p.startswith("example-docs/"))),
    ("dotnet+Open-XML-SDK", "open-xml-sdk", lambda c, m: by_extension(
        c, m, "open-xml-sdk", lambda p: p.startswith("test/") and ext_type(p) not in
        ("json", "md", "txt"))),
    ("python-openxml+python-docx", "python-docx", lambda c, m: by_extension(
        c, m, "python-docx", lambda p: p.startswith(("features/", "tests/test_files/"))
        and ext_type(p) not in ("txt", "xml"))),
    ("scanny+python-pptx", "python-pptx", lambda c, m: by_extension(
        c, m, "python-pptx", lambda p: p.startswith(("features/", "tests/test_files/"))
        and ext_type(p) not in ("txt", "xml"))),
    ("tafia+calamine", "calamine", lambda c, m: by_extension(
        c, m, "calamine", lambda p: p.startswith("tests/") and ext_type(p) != "md")),
    ("decalage2+oletools", "oletools", lambda c, m: by_extension(
        c, m, "oletools", lambda p: p.startswith("tests/test-data/"))),
    ("dilshod+xlsx2csv", "xlsx2csv", xlsx2csv),
    ("SheetJS+test_files", "sheetjs", sheetjs),
]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("cache")
    ap.add_argument("--mirrors", default=os.environ.get("QUIRE_MIRRORS", "/work/.mirror"))
    ap.add_argument("--only", default="", help="comma-separated source names")
    a = ap.parse_args()
    corpus = Corpus(a.cache)
    only = set(filter(None, a.only.split(",")))
    for repo, name, fn in SOURCES:
        if only and name not in only:
            continue
        m = Mirror(a.mirrors, repo)
        if not m.ok:
            print(f"gather: {name}: no mirror at {m.git}, skipped", file=sys.stderr)
            continue
        before = len(corpus.records)
        fn(corpus, m)
        print(f"gather: {name}: {len(corpus.records) - before} documents", file=sys.stderr)
    with open(os.path.join(a.cache, "manifest.jsonl"), "w") as f:
        for r in corpus.records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"gather: {len(corpus.records)} documents in {a.cache}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
