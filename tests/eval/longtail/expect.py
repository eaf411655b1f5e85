"""Expectation records mined from the suites' own tests, checked like the corpus test does.

    expect.py CACHE --quire BIN [--mirrors DIR] [--split dev|holdout|all] [--types rtf,html]
                    [--show 30] [--jsonl OUT]

The shared corpus's `expectations.jsonl` holds strings a faithful conversion must or must not
contain, taken from the projects' own tests. The same tests assert on many more of their
documents than the corpus holds; this script reads them for every document of the long-tail
cache (gather.py) that such a test names:

- Apache Tika's JUnit tests (`*Test.java`): in a test method that opens exactly one test
  document, each `assertContains("…", x)`, `assertTrue(x.contains("…"))` (must include) and
  `assertNotContained("…", x)`, `assertFalse(x.contains("…"))` (must not include) whose first
  argument is a string literal (or literals joined by `+`). Strings with markup (`<`, `>`:
  Tika asserts on its XHTML) or under three characters are left out, as are methods whose
  assertions read metadata rather than the body.
- markitdown's test vectors (`_test_vectors.py`): `must_include` / `must_not_include`.
- Unstructured's partition tests (`test_unstructured/partition/**/test_*.py`): in a test
  function that names one example document (or several named alike, as a parametrisation
  over encodings of one text), the texts of the elements it expects (`Title(text="…")`,
  `NarrativeText("…")`, …, also through module-level lists it compares with) and the
  strings of `assert "…" in …` and `assert ….text == "…"`, each a must-include. Strings
  under four characters are left out.

Each record is checked as `tests/tests/corpus.rs` checks the corpus: whitespace folded, on
the Markdown as written and as a reader sees it (escapes resolved, emphasis markers, link
targets and table pipes gone). A record is met when every string it requires is found and
none it forbids. Reported per type and per source; the misses are listed.
"""

import argparse
import ast
import collections
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import score  # noqa: E402

TYPES = {"rtf", "docx", "pptx", "pptm", "potx", "potm", "xlsx", "xlsm", "xls", "xlsb", "ods",
         "csv", "txt", "md", "html", "htm", "xml", "json"}
JAVA_STR = r'"(?:[^"\\\n]|\\.)*"'
LITERALS = rf'{JAVA_STR}(?:\s*\+\s*{JAVA_STR})*'


def git(mirror: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", mirror, *args], capture_output=True,
                          check=True).stdout.decode("utf-8", "replace")


def java_string(lits: str) -> str | None:
    """The value of Java string literals joined by `+`, or None when an escape is unknown."""
    out = []
    for lit in re.findall(JAVA_STR, lits):
        body, i, s = lit[1:-1], 0, []
        while i < len(body):
            c = body[i]
            if c != "\\":
                s.append(c)
                i += 1
                continue
            n = body[i + 1]
            if n == "u":
                s.append(chr(int(body[i + 2:i + 6], 16)))
                i += 6
            elif n in "nrt":
                s.append({"n": "\n", "r": "\r", "t": "\t"}[n])
                i += 2
            elif n in "\"'\\":
                s.append(n)
                i += 2
            else:
                return None
        out.append("".join(s))
    # Java source holds UTF-16: surrogate pairs written as two \u escapes join here
    return "".join(out).encode("utf-16", "surrogatepass").decode("utf-16")


def methods(src: str):
    """(name, body) of each @Test method."""
    for m in re.finditer(r"@Test\b[^{;]*?\bvoid\s+(\w+)\s*\([^)]*\)[^{;]*\{", src):
        depth, i = 1, m.end()
        while i < len(src) and depth:
            if src[i] == '"':
                j = src.find('"', i + 1)
                while j != -1 and src[j - 1] == "\\" and src[j - 2] != "\\":
                    j = src.find('"', j + 1)
                i = (j if j != -1 else len(src)) + 1
                continue
            depth += {"{": 1, "}": -1}.get(src[i], 0)
            i += 1
        yield m.group(1), src[m.end():i - 1]


def tika_records(mirror: str, docs: dict[str, str]) -> list[dict]:
    files = [p for p in git(mirror, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
             if p.endswith("Test.java") and "/src/test/java/" in p]
    out = []
    for path in files:
        src = git(mirror, "show", f"HEAD:{path}")
        for name, body in methods(src):
            named = {d for d in re.findall(r'"([^"/\\]+\.([A-Za-z0-9]+))"', body)
                     if d[1].lower() in TYPES and d[0] in docs}
            if len({d[0] for d in named}) != 1:
                continue
            doc = next(iter(named))[0]
            must, must_not = [], []
            pats = [
                (must, rf"assertContains\(\s*({LITERALS})\s*,"),
                (must, rf"assertTrue\(\s*\w+(?:\.\w+)?\.contains\(\s*({LITERALS})\s*\)\s*\)"),
                (must_not, rf"assertNotContained\(\s*({LITERALS})\s*,"),
                (must_not, rf"assertFalse\(\s*\w+(?:\.\w+)?\.contains\(\s*({LITERALS})\s*\)"),
            ]
            for bucket, pat in pats:
                for m in re.finditer(pat, body):
                    s = java_string(m.group(1))
                    if s is None or "<" in s or ">" in s or len(s.strip()) < 3:
                        continue
                    bucket.append(s)
            if must or must_not:
                out.append({"file": docs[doc], "must_include": must, "must_not_include": must_not,
                            "source": f"apache/tika:{path}#{name}"})
    return out


def markitdown_records(mirror: str, docs: dict[str, str]) -> list[dict]:
    out = []
    for path in git(mirror, "ls-tree", "-r", "--name-only", "HEAD").splitlines():
        if not path.endswith("_test_vectors.py"):
            continue
        tree = ast.parse(git(mirror, "show", f"HEAD:{path}"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "FileTestVector"):
                continue
            kw = {k.arg: k.value for k in node.keywords}
            try:
                name = ast.literal_eval(kw["filename"])
                must = ast.literal_eval(kw.get("must_include", ast.List(elts=[])))
                must_not = ast.literal_eval(kw.get("must_not_include", ast.List(elts=[])))
            except (KeyError, ValueError):
                continue
            if name in docs:
                out.append({"file": docs[name], "must_include": must,
                            "must_not_include": must_not, "source": f"microsoft/markitdown:{path}"})
    return out


ELEMENTS = {"Title", "NarrativeText", "Text", "ListItem", "Header", "Footer", "Address",
            "EmailAddress", "FigureCaption", "Table", "Formula", "CodeSnippet", "PageNumber"}


def unstructured_records(mirror: str, docs: dict[str, str]) -> list[dict]:
    out = []
    paths = [p for p in git(mirror, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
             if p.startswith("test_unstructured/partition/") and p.endswith(".py")
             and os.path.basename(p).startswith("test_")]
    for path in paths:
        try:
            tree = ast.parse(git(mirror, "show", f"HEAD:{path}"))
        except SyntaxError:
            continue
        module = {t.id: node.value for node in tree.body if isinstance(node, ast.Assign)
                  for t in node.targets if isinstance(t, ast.Name)}

        def element_texts(node, seen=()) -> list[str]:
            texts = []
            for n in ast.walk(node):
                if isinstance(n, ast.Call) and getattr(n.func, "id", "") in ELEMENTS:
                    arg = n.args[0] if n.args else next(
                        (k.value for k in n.keywords if k.arg == "text"), None)
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        texts.append(arg.value)
                elif isinstance(n, ast.Name) and n.id in module and n.id not in seen:
                    texts += element_texts(module[n.id], seen + (n.id,))
            return texts

        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    or not fn.name.startswith("test"):
                continue
            names = {n.value for n in ast.walk(fn) if isinstance(n, ast.Constant)
                     and isinstance(n.value, str) and n.value in docs}
            for d in fn.decorator_list:
                names |= {n.value for n in ast.walk(d) if isinstance(n, ast.Constant)
                          and isinstance(n.value, str) and n.value in docs}
            if not names or len({n[:6] for n in names}) != 1 or len(names) > 3:
                continue
            must = element_texts(fn)
            for n in ast.walk(fn):
                if not isinstance(n, ast.Assert) or not isinstance(n.test, ast.Compare):
                    continue
                c = n.test
                if isinstance(c.ops[0], ast.In) and isinstance(c.left, ast.Constant) \
                        and isinstance(c.left.value, str):
                    must.append(c.left.value)
                elif isinstance(c.ops[0], ast.Eq) and isinstance(c.left, ast.Attribute) \
                        and c.left.attr == "text" and isinstance(c.comparators[0], ast.Constant) \
                        and isinstance(c.comparators[0].value, str):
                    must.append(c.comparators[0].value)
            must = [m for m in dict.fromkeys(must) if len(m.strip()) >= 4 and "<" not in m]
            for name in sorted(names):
                if must:
                    out.append({"file": docs[name], "must_include": must, "must_not_include": [],
                                "source": f"Unstructured-IO/unstructured:{path}#{fn.name}"})
    return out


def fold(s: str) -> str:
    return " ".join(s.split())


def reader_view(md: str) -> str:
    """What a Markdown reader shows, as tests/tests/corpus.rs computes it."""
    rows = []
    for line in md.split("\n"):
        if line.lstrip().startswith("|"):
            if all(c in "|-: " for c in line):
                continue
            line = re.sub(r"(?<!\\)\|", " ", line)
        rows.append(line)
    s = "\n".join(rows)
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s) and s[i + 1].isascii() and not s[i + 1].isalnum() \
                and not s[i + 1].isspace():
            out.append(s[i + 1])
            i += 2
            continue
        if c == "]" and s[i + 1:i + 2] == "(":
            depth, j = 0, i + 1
            while j < len(s):
                if s[j] == "(":
                    depth += 1
                elif s[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                elif s[j] == "\n":
                    break
                j += 1
            if j < len(s) and s[j] == ")":
                i = j + 1
                continue
        if c in "*~":
            i += 1
            continue
        if c == "[" or (c == "!" and s[i + 1:i + 2] == "["):
            i += 2 if c == "!" else 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("cache")
    ap.add_argument("--quire", required=True)
    ap.add_argument("--mirrors", default=os.environ.get("QUIRE_MIRRORS", "/work/.mirror"))
    ap.add_argument("--split", choices=("all", "dev", "holdout"), default="all")
    ap.add_argument("--types", default="")
    ap.add_argument("--show", type=int, default=40)
    ap.add_argument("--jsonl")
    a = ap.parse_args()
    recs = [json.loads(line) for line in open(os.path.join(a.cache, "manifest.jsonl"),
                                              encoding="utf-8")]
    by_source = collections.defaultdict(dict)
    meta = {}
    for r in recs:
        if a.split != "all" and score.held_out(r) != (a.split == "holdout"):
            continue
        base = r["origin"].rsplit("/", 1)[-1]
        by_source[r["source"]][base] = r["path"]
        meta[r["path"]] = r
    records = []
    tika = os.path.join(a.mirrors, "apache+tika", "repo")
    if os.path.isdir(tika):
        records += tika_records(tika, by_source["tika"])
    mid = os.path.join(a.mirrors, "microsoft+markitdown", "repo")
    if os.path.isdir(mid):
        records += markitdown_records(mid, by_source["markitdown"])
    uns = os.path.join(a.mirrors, "Unstructured-IO+unstructured", "repo")
    if os.path.isdir(uns):
        records += unstructured_records(uns, by_source["unstructured"])
    types = set(a.types.split(",")) - {""}
    if types:
        records = [r for r in records if meta[r["file"]]["type"] in types]
    if a.jsonl:
        with open(a.jsonl, "w", encoding="utf-8") as f:
            for r in records:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    tally = collections.defaultdict(lambda: [0, 0])
    misses = []
    outputs = {}
    for r in records:
        path = os.path.join(a.cache, r["file"])
        if path not in outputs:
            rc, out, err, _ = score.convert(a.quire, path, "md", 120)
            outputs[path] = out.decode("utf-8", "replace") if rc == 0 else None
        md = outputs[path]
        typ = meta[r["file"]]["type"]
        src = r["source"].split(":")[0]
        for key in (typ, src):
            tally[key][1] += 1
        if md is None:
            misses.append((typ, r, "conversion failed", []))
            continue
        raw, read = fold(md), fold(reader_view(md))
        missing = [s for s in r["must_include"] if fold(s) not in raw and fold(s) not in read]
        present = [s for s in r["must_not_include"] if fold(s) in raw or fold(s) in read]
        if missing or present:
            misses.append((typ, r, missing, present))
        else:
            for key in (typ, src):
                tally[key][0] += 1
    print(f"{len(records)} records on {len(outputs)} documents")
    for k, (met, n) in sorted(tally.items()):
        print(f"  {k:24} {met:4}/{n:<4} {100 * met / n:5.1f}%")
    for typ, r, missing, present in misses[:a.show]:
        print(f"miss {typ} {os.path.basename(r['file'])} [{r['source'].rsplit('#', 1)[-1]}]: "
              f"missing {missing!r:.300} unwanted {present!r:.200}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
