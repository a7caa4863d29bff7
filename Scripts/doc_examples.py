"""The documentation's examples, for Scripts/readme_check.sh.

    python3 Scripts/doc_examples.py commands PAGE...   every `swift run citytwin` line of the pages' sh blocks
    python3 Scripts/doc_examples.py session PAGE...    the lines of the block marked <!-- readme_check: session -->

Commands: the `sh` blocks without `curl`, in page order; the comment after `  # ` goes; an optional part
`[…]` is kept without its brackets unless it names alternatives or a placeholder (`|` or `…`), then it
goes; `swift run citytwin` becomes "$CITYTWIN". Session: the marked block's lines, comments gone, the
server at 127.0.0.1:$port, each curl failing on an HTTP error.
"""
import re
import sys

MARK = "<!-- readme_check: session -->"


def blocks(path):
    """(marked, lines) of every ```sh block of a page."""
    text = open(path, encoding="utf-8").read()
    out, lines, inside, marked, previous = [], [], False, False, ""
    for line in text.splitlines():
        if not inside and line.strip() == "```sh":
            inside, lines, marked = True, [], previous.strip() == MARK
        elif inside and line.strip() == "```":
            inside = False
            out.append((marked, lines))
        elif inside:
            lines.append(line)
        if line.strip():
            previous = line
    if inside:
        sys.exit(f"{path}: an sh block is not closed")
    return out


def commands(pages):
    for page in pages:
        for marked, lines in blocks(page):
            if marked or any(re.search(r"\bcurl\b", l) for l in lines):
                continue
            for line in lines:
                line = line.strip()
                if "swift run citytwin" not in line:
                    continue
                line = re.sub(r"\s+#\s.*$", "", line)
                line = re.sub(r"\[([^\]]*)\]", lambda m: "" if ("|" in m.group(1) or "…" in m.group(1)) else m.group(1), line)
                line = line.replace("swift run citytwin", '"$CITYTWIN"')
                print(re.sub(r"\s+", " ", line).strip())


def session(pages):
    found = [(page, lines) for page in pages for marked, lines in blocks(page) if marked]
    if len(found) != 1:
        sys.exit(f"expected one block marked {MARK}, found {len(found)}: {[p for p, _ in found]}")
    for line in found[0][1]:
        line = line.strip()
        if not line:
            continue
        line = re.sub(r"\s+#\s[^']*$", "", line)
        line = line.replace("swift run citytwin", '"$CITYTWIN"').replace("127.0.0.1:8080", "127.0.0.1:$port")
        print(line.replace("curl -s ", "curl -sS --fail-with-body "))


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("commands", "session"):
        sys.exit(__doc__)
    {"commands": commands, "session": session}[sys.argv[1]](sys.argv[2:])
