"""Random document content with known structure, shared by every PDF producer.

A document is a list of blocks, each a dict:
  {"kind": "heading", "level": 1..3, "text": str, "numbered": bool}
  {"kind": "para", "text": str}
  {"kind": "list", "ordered": bool, "items": [{"text": str, "depth": 0|1}]}
  {"kind": "table", "rules": "full"|"partial"|"none", "rows": [[str, ...], ...], "header": True}
  {"kind": "caption", "text": str}
The text is pseudo-English (syllables), new on every seed, so nothing can be tuned to it.
"""

import random

ONSETS = ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w",
          "br", "cl", "dr", "fl", "fr", "gr", "pl", "pr", "st", "tr", "sh", "th", "ch", "sp", "fi"]
NUCLEI = ["a", "e", "i", "o", "u", "ea", "ou", "ai", "io", "ie"]
CODAS = ["", "", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ck", "ff", "ng", "ft"]


class Words:
    def __init__(self, rng: random.Random):
        self.rng = rng
        # A vocabulary per document: real documents repeat their words.
        self.vocab = [self._word() for _ in range(400)]

    def _word(self) -> str:
        r = self.rng
        n = r.choice([1, 1, 1, 2, 2, 2, 3])
        return "".join(r.choice(ONSETS) + r.choice(NUCLEI) + r.choice(CODAS) for _ in range(n))

    def word(self) -> str:
        w = self.rng.choice(self.vocab)
        roll = self.rng.random()
        if roll < 0.03:
            return str(self.rng.randint(2, 9999))
        if roll < 0.05:
            return f"{self.rng.randint(1, 99)}.{self.rng.randint(0, 9)}%"
        return w

    def sentence(self, lo: int = 6, hi: int = 18) -> str:
        n = self.rng.randint(lo, hi)
        ws = [self.word() for _ in range(n)]
        ws[0] = ws[0].capitalize()
        if n > 8 and self.rng.random() < 0.4:
            k = self.rng.randint(3, n - 3)
            ws[k] += ","
        return " ".join(ws) + self.rng.choice([".", ".", ".", ".", "?", "."])

    def paragraph(self, lo: int = 2, hi: int = 6) -> str:
        return " ".join(self.sentence() for _ in range(self.rng.randint(lo, hi)))

    def title(self, lo: int = 2, hi: int = 6) -> str:
        return " ".join(self.word().capitalize() for _ in range(self.rng.randint(lo, hi)))

    def phrase(self, lo: int = 1, hi: int = 4) -> str:
        return " ".join(self.word() for _ in range(self.rng.randint(lo, hi)))

    def cell(self) -> str:
        roll = self.rng.random()
        if roll < 0.35:
            return f"{self.rng.randint(0, 99999):,}"
        if roll < 0.45:
            return f"{self.rng.uniform(0, 100):.1f}"
        return self.phrase(1, 3).capitalize()


def document(rng: random.Random, target_pages: int = 3) -> dict:
    """A document of roughly `target_pages` pages: sections with headings, paragraphs,
    lists and tables, and the furniture that runs on every page."""
    w = Words(rng)
    blocks = []
    numbered = rng.random() < 0.4
    n_sections = rng.randint(2, 3) * target_pages
    h1 = 0
    h2 = 0
    blocks.append({"kind": "heading", "level": 1, "text": w.title(3, 7), "numbered": False})
    blocks.append({"kind": "para", "text": w.paragraph(2, 4)})
    for _ in range(n_sections):
        level = rng.choice([2, 2, 3]) if h1 or not numbered else 2
        if level == 2:
            h1 += 1
            h2 = 0
            num = f"{h1}. " if numbered else ""
        else:
            h2 += 1
            num = f"{max(h1, 1)}.{h2} " if numbered else ""
        blocks.append({"kind": "heading", "level": level, "text": num + w.title(2, 6),
                       "numbered": numbered})
        for _ in range(rng.randint(1, 3)):
            roll = rng.random()
            if roll < 0.55:
                blocks.append({"kind": "para", "text": w.paragraph()})
            elif roll < 0.8:
                blocks.append(make_list(rng, w))
            else:
                blocks.append(make_table(rng, w))
                if rng.random() < 0.5:
                    blocks.append({"kind": "caption",
                                   "text": f"Table {rng.randint(1, 20)}: " + w.sentence(5, 12)})
                blocks.append({"kind": "para", "text": w.paragraph(1, 3)})
    return {
        "blocks": blocks,
        "header": w.title(2, 4) + " " + rng.choice(["Report", "Notes", "Review", "Draft", "Memo"]),
        "footer_style": rng.choice(["page", "page_of", "dash", "bare", "name_page"]),
        "footer_name": w.title(1, 2) + " " + rng.choice(["Ltd", "Group", "Institute", "Press"]),
        "margin_line": (f"arXiv:{rng.randint(1000, 2999)}.{rng.randint(10000, 99999)}v{rng.randint(1, 4)}"
                        f" [{rng.choice(['cs.CL', 'math.AP', 'q-bio.GN', 'physics.optics'])}]"
                        f" {rng.randint(1, 28)} {rng.choice(['Jan', 'Mar', 'Jun', 'Oct'])} 20{rng.randint(10, 25)}")
        if rng.random() < 0.25 else None,
    }


def make_list(rng: random.Random, w: Words) -> dict:
    ordered = rng.random() < 0.4
    items = []
    for _ in range(rng.randint(2, 6)):
        items.append({"text": w.sentence(3, 14).rstrip("."), "depth": 0})
        if rng.random() < 0.25:
            for _ in range(rng.randint(1, 3)):
                items.append({"text": w.sentence(2, 9).rstrip("."), "depth": 1})
    return {"kind": "list", "ordered": ordered, "items": items}


def make_table(rng: random.Random, w: Words) -> dict:
    cols = rng.randint(2, 5)
    rows = rng.randint(3, 9)
    header = [w.title(1, 2) for _ in range(cols)]
    body = [[w.cell() for _ in range(cols)] for _ in range(rows)]
    # The first column names the row, as it does in most real tables.
    for r in body:
        r[0] = w.phrase(1, 3).capitalize()
    rules = rng.choice(["full", "partial", "none"])
    return {"kind": "table", "rules": rules, "rows": [header] + body, "header": True}


def footer_text(doc: dict, page: int, pages: int) -> str:
    style = doc["footer_style"]
    if style == "page":
        return f"Page {page}"
    if style == "page_of":
        return f"Page {page} of {pages}"
    if style == "dash":
        return f"- {page} -"
    if style == "bare":
        return f"{page}"
    return f"{doc['footer_name']} | {page}"
