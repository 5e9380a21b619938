#!/usr/bin/env python3
"""The repository's layering rules, checked (registered with ctest as `layers`).

    python3 tests/tools/check_layers.py [REPOSITORY_ROOT]

Rules (docs/architecture.md, "Layers" and "Module order inside core"):
  1. sdk/ includes nothing from core/, apps/ or plugins/.
  2. core/ includes nothing from apps/ or plugins/.
  3. plugins/ and examples/ include nothing from core/ or apps/ (the SDK only), and a family
     includes nothing from another family's folder.
  4. Inside core/, a module includes only modules below it in MODULE_ORDER.
  5. core/ never tests a family's name: no string literal in core's code (comments do not
     count) equal to a family name or, for names of four letters or more, starting with one.
  6. No file refers to the design notes that live outside the repository (SPEC.md,
     ARCHITECTURE.md, FAMILIES.md, the steering repository, the project brief) or to a path
     through ../shared/: docs/design.md is the repository's own account of that contract.
  7. Every link to a section of docs/design.md (design.md + "#" + anchor) names a heading it has.

Prints one line per violation, `file:line: rule: what`, and exits 1 when there is any.
Standard library only: it runs wherever ctest does.
"""

import os
import re
import subprocess
import sys

# Lowest first. A module may include the modules before it, never one after it. "(root)" is
# core/include/libreyolo/core/*.hpp (error.hpp): everything may include it.
MODULE_ORDER = [
    "(root)",
    "util",
    "log",
    "config",
    "data",
    "draw",
    "eval",
    "checkpoint",
    "weights",
    "optim",
    "amp",
    "capture",
    "profiler",
    "distributed",
    "device",
    "plugins",
    "trainer",
    "predict",
]

# Includes from a lower module to a higher one that are allowed, each with its reason:
# {(including module, included module): why}. Empty: the order holds without exceptions.
DECLARED_EXCEPTIONS = {}

# Every family LibreYOLO ships (docs/design.md#families) and the example family; the folders
# under plugins/ are added at run time.
KNOWN_FAMILIES = [
    "yolo9", "yolo9_e2e", "yolo9_p2", "yolox", "yolo7", "yolonas", "rfdetr", "dfine", "deim",
    "deimv2", "rtdetr", "rtdetrv2", "rtdetrv4", "picodet", "damoyolo", "rtmdet", "ec", "l2cs",
    "fomo", "example",
]

# String literals in core/ that start with a family name but do not test a family, with why.
ALLOWED_FAMILY_LITERALS = {
    "yoloxwarmcos": "the learning-rate schedule's user-facing name, spelled as LibreYOLO spells it",
}

SOURCE_SUFFIXES = (".cpp", ".hpp", ".h", ".cc", ".cu", ".cuh")
TOP_DIRS_CHECKED = ("sdk", "core", "apps", "plugins", "examples")

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
RAW_STRING_START = re.compile(r'(?:u8|u|U|L)?R"([^()\\ ]{0,16})\(')
IDENTIFIER_CHAR = re.compile(r"[A-Za-z0-9_]")

# Rule 6: names of the notes kept outside the repository (exact case: docs/architecture.md is
# ours) and the phrases that pointed at them.
EXTERNAL_REFERENCES = [
    (re.compile(r"\bSPEC\.md\b"), "SPEC.md"),
    (re.compile(r"\bSPEC\b"), "the SPEC (SPEC.md)"),
    (re.compile(r"\bARCHITECTURE\.md\b"), "ARCHITECTURE.md"),
    (re.compile(r"\bFAMILIES\.md\b"), "FAMILIES.md"),
    (re.compile(r"\.\./shared\b"), "../shared"),
    (re.compile(r"steering repo", re.IGNORECASE), "the steering repository"),
    (re.compile(r"project brief", re.IGNORECASE), "the project brief"),
]


def tracked_files(root):
    """The files git tracks (and new ones it does not ignore); a walk when git is absent."""
    try:
        out = subprocess.run(
            ["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            check=True, capture_output=True).stdout.decode("utf-8", "replace")
        # Hidden top-level folders (.devkit, .reference, ...) hold other trees or tools, never
        # the project's own sources, even where a copy of the tree lacks their ignore rules.
        files = [f for f in out.split("\0") if f and not f.startswith(".")]
        return sorted(f for f in files if os.path.isfile(os.path.join(root, f)))
    except (OSError, subprocess.CalledProcessError):
        found = []
        for folder, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
            found += [os.path.relpath(os.path.join(folder, n), root) for n in names]
        return sorted(found)


def core_module(path):
    """core/include/libreyolo/core/<m>/... or core/src/<m>/... -> <m>; files directly there -> (root)."""
    for prefix in ("core/include/libreyolo/core/", "core/src/"):
        if path.startswith(prefix):
            rest = path[len(prefix):]
            return rest.split("/")[0] if "/" in rest else "(root)"
    return None


def top_dir(path):
    return path.split("/")[0]


def resolve_include(including, name, files):
    """The repository file an include names, or None for a system or third-party header."""
    candidates = []
    if name.startswith("libreyolo/core/"):
        candidates.append("core/include/" + name)
    elif name.startswith("libreyolo/sdk/"):
        candidates.append("sdk/include/" + name)
    candidates.append(os.path.normpath(os.path.join(os.path.dirname(including), name)))
    for candidate in candidates:
        if candidate in files:
            return candidate
    # An include of core or the SDK that names no file is still an include of that layer.
    if name.startswith("libreyolo/core/"):
        return "core/include/" + name
    if name.startswith("libreyolo/sdk/"):
        return "sdk/include/" + name
    return None


def family_folder(path):
    parts = path.split("/")
    return parts[1] if len(parts) > 2 and parts[0] in ("plugins", "examples") else None


def include_violation(including, included):
    """The rule an include breaks, or None."""
    source, target = top_dir(including), top_dir(included)
    if source == "sdk" and target in ("core", "apps", "plugins"):
        return f"rule 1 (sdk/ includes only the SDK): includes {target}/ ({included})"
    if source == "core" and target in ("apps", "plugins"):
        return f"rule 2 (core/ never includes {target}/): includes {included}"
    if source in ("plugins", "examples"):
        if target in ("core", "apps"):
            return f"rule 3 ({source}/ builds against the SDK only): includes {target}/ ({included})"
        if target in ("plugins", "examples") and family_folder(including) != family_folder(included):
            return f"rule 3 (a family includes only its own folder and the SDK): includes {included}"
    if source == "core" and target == "core":
        low, high = core_module(including), core_module(included)
        if low is None or high is None or low == high:
            return None
        if low not in MODULE_ORDER or high not in MODULE_ORDER:
            unknown = low if low not in MODULE_ORDER else high
            return (f"rule 4: core module '{unknown}' has no place in the module order "
                    "(add it to MODULE_ORDER in tests/tools/check_layers.py and docs/architecture.md)")
        if MODULE_ORDER.index(high) > MODULE_ORDER.index(low) and (low, high) not in DECLARED_EXCEPTIONS:
            return (f"rule 4 (core modules include only lower ones: {' < '.join(MODULE_ORDER[1:])}): "
                    f"{low} includes the higher module {high} ({included})")
    return None


def check_includes(files, lines_of):
    problems = []
    file_set = set(files)
    for path in files:
        if top_dir(path) not in TOP_DIRS_CHECKED or not path.endswith(SOURCE_SUFFIXES):
            continue
        for number, line in enumerate(lines_of(path), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            included = resolve_include(path, match.group(2), file_set)
            if included is None:
                continue
            why = include_violation(path, included)
            if why:
                problems.append(f"{path}:{number}: {why}")
    return problems


def string_literals(text):
    """(line, contents) of every string literal in C++ source, comments skipped."""
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += text.count("\n", i, end)
            i = end
        elif (raw := RAW_STRING_START.match(text, i)) and (i == 0 or not IDENTIFIER_CHAR.match(text[i - 1])):
            close = ")" + raw.group(1) + '"'
            end = text.find(close, raw.end())
            end = n if end < 0 else end
            yield line, text[raw.end():end]
            line += text.count("\n", i, end)
            i = end + len(close)
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            yield line, text[i + 1:j]
            i = j + 1
        elif c == "'":
            # A character literal, or a digit separator (1'000'000): skip to the closing quote
            # only when it is close.
            j = i + 1
            if j < n and text[j] == "\\":
                j += 2
            else:
                j += 1
            while j < n and j < i + 12 and text[j] != "'" and text[j] != "\n":
                j += 1
            i = j + 1 if j < n and text[j] == "'" else i + 1
        else:
            i += 1


def family_names(files):
    names = set(KNOWN_FAMILIES)
    for path in files:
        if path.startswith("plugins/") and path.count("/") >= 2:
            names.add(path.split("/")[1])
    return sorted(names, key=len, reverse=True)


def literal_names_family(literal, families):
    text = literal.lower()
    for family in families:
        if text == family or (len(family) >= 4 and text.startswith(family)):
            return family
    return None


def check_family_literals(files, read):
    problems = []
    families = family_names(files)
    for path in files:
        if top_dir(path) != "core" or not path.endswith(SOURCE_SUFFIXES):
            continue
        for line, literal in string_literals(read(path)):
            family = literal_names_family(literal, families)
            if family and literal.lower() not in ALLOWED_FAMILY_LITERALS:
                problems.append(f'{path}:{line}: rule 5 (core never tests a family\'s name): the string "{literal}" '
                                f"names the family {family}; read the family's Policy or Recipe instead")
    return problems


def check_external_references(files, lines_of):
    problems = []
    for path in files:
        if path == "tests/tools/check_layers.py":
            continue  # names them to forbid them
        try:
            lines = lines_of(path)
        except (UnicodeDecodeError, OSError):
            continue  # a binary file, or one that cannot be read as text
        for number, line in enumerate(lines, 1):
            for pattern, what in EXTERNAL_REFERENCES:
                if pattern.search(line):
                    problems.append(f"{path}:{number}: rule 6 (no reference outside the repository): refers to "
                                    f"{what}; point at docs/design.md (or the docs page that covers it) instead")
    return problems


def heading_anchor(heading):
    """GitHub's anchor for a Markdown heading: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


DESIGN_LINK = re.compile(r"design\.md#([A-Za-z0-9_\-]+)")


def check_design_links(files, lines_of):
    if "docs/design.md" not in files:
        return []
    anchors = {heading_anchor(line.lstrip("#")) for line in lines_of("docs/design.md") if line.startswith("#")}
    problems = []
    for path in files:
        try:
            lines = lines_of(path)
        except (UnicodeDecodeError, OSError):
            continue
        for number, line in enumerate(lines, 1):
            for anchor in DESIGN_LINK.findall(line):
                if anchor not in anchors:
                    problems.append(f"{path}:{number}: rule 7 (links into docs/design.md name a section): "
                                    f"docs/design.md has no section #{anchor} (it has: {', '.join(sorted(anchors))})")
    return problems


def main(argv):
    root = os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
    files = tracked_files(root)
    cache = {}

    def read(path):
        if path not in cache:
            with open(os.path.join(root, path), encoding="utf-8") as f:
                cache[path] = f.read()
        return cache[path]

    def lines_of(path):
        return read(path).split("\n")

    problems = check_includes(files, lines_of) + check_family_literals(files, read) + \
        check_external_references(files, lines_of) + check_design_links(files, lines_of)
    for problem in problems:
        print(problem)
    checked = sum(1 for f in files if top_dir(f) in TOP_DIRS_CHECKED and f.endswith(SOURCE_SUFFIXES))
    if problems:
        print(f"layers: {len(problems)} violation(s) in {len(files)} files; see docs/architecture.md, \"Layers\"")
        return 1
    print(f"layers: ok ({checked} source files, {len(files)} files checked; core order: {' < '.join(MODULE_ORDER[1:])})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
