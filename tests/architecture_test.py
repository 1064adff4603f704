#!/usr/bin/env python3
"""The floors' layering, checked on every #include: arrows point down.

    app -> suites -> kernels, reference, harness -> theory;  base under all but theory

Each floor is a top-level directory; a floor may include itself and the floors below it that its
rule names, nothing else. theory/ is formulas only: besides itself, the C++ standard library.
Every violation is printed as `file:line: includes X (rule)`; the floor graph must have no cycle.

Usage: architecture_test.py [REPOSITORY_ROOT]   (default: this file's parent's parent)
"""
import re
import sys
from pathlib import Path

# What each floor may include with "..." (a floor always includes itself).
ALLOWED = {
    "base": {"base"},
    "theory": {"theory"},
    "reference": {"reference", "theory", "base"},
    "kernels": {"kernels", "reference", "theory", "base"},
    "harness": {"harness", "theory", "base"},
    "suites": {"suites", "kernels", "reference", "harness", "theory", "base"},
    "app": {"app", "suites", "kernels", "reference", "harness", "theory", "base"},
}
FLOORS = ["app", "suites", "kernels", "reference", "harness", "theory", "base"]  # top down

# The C++ standard library (C++23) and the C library as C++ spells it (<cmath>, not <math.h>):
# all theory/ may include with <...>.
STD_HEADERS = set("""
    algorithm any array atomic barrier bit bitset charconv chrono codecvt compare complex concepts
    condition_variable coroutine deque exception execution expected filesystem flat_map flat_set
    format forward_list fstream functional future generator initializer_list iomanip ios iosfwd
    iostream istream iterator latch limits list locale map mdspan memory memory_resource mutex new
    numbers numeric optional ostream print queue random ranges ratio regex scoped_allocator
    semaphore set shared_mutex source_location span spanstream sstream stack stacktrace stdexcept
    stdfloat stop_token streambuf string string_view strstream syncstream system_error thread tuple
    type_traits typeindex typeinfo unordered_map unordered_set utility valarray variant vector
    version
    cassert cctype cerrno cfenv cfloat cinttypes climits clocale cmath csetjmp csignal cstdarg
    cstddef cstdint cstdio cstdlib cstring ctime cuchar cwchar cwctype
""".split())

SOURCES = {".h", ".hpp", ".cuh", ".cpp", ".cc", ".cu", ".inc", ".in"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)


def rule_text(floor):
    others = [f + "/" for f in FLOORS if f in ALLOWED[floor] and f != floor]
    text = f"{floor}/ may include only {floor}/" + "".join(", " + o for o in others)
    return text + (" and the standard library" if floor == "theory" else "")


def includes(path):
    """(line number, '<' or '"', name) for every #include, block comments blanked."""
    text = path.read_text(encoding="utf-8", errors="replace")
    # Keep the line numbers: a comment becomes as many newlines as it spanned.
    text = BLOCK_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    for number, line in enumerate(text.splitlines(), 1):
        m = INCLUDE.match(line)
        if m:
            yield number, m.group(1), m.group(2).strip()


def target_floor(root, path, name):
    """The floor a "..." include lands in: by its first directory, else next to the includer."""
    first = name.split("/", 1)[0]
    if "/" in name and first in ALLOWED:
        return first
    local = (path.parent / name).resolve()
    try:
        rel = local.relative_to(root)
    except ValueError:
        return None
    return rel.parts[0] if local.exists() and rel.parts[0] in ALLOWED else None


def find_cycle(edges):
    """A list of floors forming a cycle in {floor: {floors it includes}}, or None."""
    state = {}  # floor -> "open" while on the DFS stack, "done" after

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt, stack)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(edges):
        if node not in state:
            cycle = visit(node, [])
            if cycle:
                return cycle
    return None


def check(root):
    violations, edges, files = [], {}, 0
    for floor in FLOORS:
        top = root / floor
        if not top.is_dir():
            continue  # app/ before it exists
        for path in sorted(p for p in top.rglob("*") if p.is_file() and p.suffix in SOURCES):
            files += 1
            rel = path.relative_to(root)
            for line, bracket, name in includes(path):
                where = f"{rel}:{line}: includes {name}"
                if bracket == "<":
                    if floor == "theory" and name not in STD_HEADERS:
                        violations.append(f"{where} ({rule_text(floor)})")
                    continue
                to = target_floor(root, path, name)
                if to is None:
                    violations.append(f"{where} (not a floor's header: spell it from the "
                                      "repository root, e.g. \"theory/roofline.h\")")
                    continue
                if to != floor:
                    edges.setdefault(floor, set()).add(to)
                if to not in ALLOWED[floor]:
                    violations.append(f"{where} ({rule_text(floor)})")
    cycle = find_cycle(edges)
    if cycle:
        violations.append("floor graph has a cycle: " + " -> ".join(cycle))
    return files, violations


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    root = root.resolve()
    files, violations = check(root)
    for v in violations:
        print(v)
    if files == 0:
        print(f"architecture: no sources found under {root}")
        return 1
    if violations:
        print(f"architecture: {len(violations)} violation(s) in {files} files")
        return 1
    print(f"architecture: {files} files, every include points down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
