"""The docs are true to the repo.

- The generated pages are up to date with the code and data (regenerate: ``python -m aos_env.tools.docs``).
- docs/api.md's examples run, and it names everything ``aos_env.core`` exports.
- Every reference resolves: the repo's ``*.py``, ``*.md``, ``*.ipynb`` and ``*.toml`` files
  (tracked, or new and not ignored; notebooks: their cells' sources, not their outputs) mention
  only files, folders, headings, modules and names that the repo has. What is checked:

  * markdown links ``[text](target)`` and ``![alt](target)`` in markdown prose (outside code),
    relative to the page, and their ``#anchors`` (a heading of the page linked to, GitHub's way);
  * markdown file names (``docs/rules.md``, ``observation.md``): next to the mentioning file, from
    the repo root, or (a bare name) in ``docs/``;
  * repo paths that start with one of the repo's top-level folders (``aos_env/core/state.py``,
    ``docs/``, ``tests/helpers.py``), from the repo root, when they name a file (an extension) or
    a folder (a trailing ``/``): ``aos_env/AgeOfSummoners-v1`` is a Gymnasium id;
  * bare Python file names (``turn.py``): some file of the repo has that name;
  * in markdown, dotted names of the project's modules (``aos_env.envs.opponents.OpponentPool``,
    ``python -m agents.evaluation.evaluate``, and ``core.X`` for ``aos_env.core.X``): the module exists and
    defines the first name after it.

  In Python files, docstrings and comments are read like prose, other string literals for repo
  paths only (a bare ``"table.md"`` there is a file a program writes), f-strings not at all.
  Mentions that are not references are left out: anything inside a web address, templates
  (``runs/<name>/``, ``bot_{p}p.npz``, ``*.json``), and paths that ``.gitignore`` matches (what
  the programs write: ``runs/``, ``benchmarks/results/``, ``replays/``).
- Nothing names the files of the original specification, which users do not have (the project's
  own pages are docs/api.md, docs/rules.md and docs/cards.md).
"""

from __future__ import annotations

import ast
import fnmatch
import json
import os
import re
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath

import pytest

from aos_env.tools.docs import cards_markdown, observation_markdown, table_svg

pytestmark = pytest.mark.one_backend  # nothing here depends on the engine

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: The kinds of files whose references are checked.
SCANNED = ("*.py", "*.md", "*.ipynb", "*.toml")
#: The modules of ``agents`` before 0.5.0 sorted them into subpackages by job, and where each went.
#: The old paths import no more (no shim); the CHANGELOG's history still names them.
AGENTS_MOVED = {
    **{f"agents.{m}": f"agents.players.{m}" for m in ("base", "random_agent", "greedy", "_greedy_kernel", "mc", "bot")},
    "agents.policy": "agents.players.policy",
    **{f"agents.{m}": f"agents.files.{m}" for m in ("model_file", "export", "torch_bot")},
    **{f"agents.{m}": f"agents.evaluation.{m}" for m in ("matches", "evaluate", "leaderboard")},
    "agents.tournament": "agents.evaluation.matches",  # the shim re-exported matches' names
    "agents.exploit": "agents.training.exploit",  # the training package (python -m agents.training.exploit)
}
#: Names that 0.5.0 removed without a successor of the same kind; the CHANGELOG says so, and only it may name them.
REMOVED_IN_0_5 = {"agents.training.BACKENDS"}


# ---- the generated pages -------------------------------------------------------------------------


def test_cards_md_is_generated_from_data() -> None:
    assert (DOCS / "cards.md").read_text(encoding="utf-8") == cards_markdown()


def test_observation_md_matches_layout() -> None:
    assert (DOCS / "observation.md").read_text(encoding="utf-8") == observation_markdown()


def test_table_svg_is_generated() -> None:
    assert (DOCS / "table.svg").read_text(encoding="utf-8") == table_svg()


def test_rules_md_cites_every_clause() -> None:
    text = (DOCS / "rules.md").read_text(encoding="utf-8")
    spec_ids = [
        "R1.1",
        "R1.2",
        "R1.3",
        "R1.4",
        "R1.5",
        "R2.1",
        "R2.2",
        "R2.3",
        "R2.4",
        "R2.5",
        "R3.1.1",
        "R3.1.2",
        "R3.1.3",
        "R3.2.1",
        "R3.2.2",
        "R3.3.1",
        "R3.3.2",
        "R3.3.3",
        "R4.1",
        "R4.2",
        "R4.3",
        "R4.4",
        "R4.5",
        "R5.1",
        "R5.2",
        "R5.3",
        "R6.1",
        "R6.2",
        "R6.3",
        "R6.4",
        "R6.5",
        "R6.6",
        "R6.7",
        "R7.1",
        "R7.2",
        "R7.3",
        "R7.4",
        "R7.5",
        "R8.1",
        "R8.2",
        "R8.3",
        "R8.4",
        "R9.1",
        "R9.2",
        "R10.1",
        "R10.2",
        "R10.3",
        "R10.4",
    ]
    missing = [i for i in spec_ids if f"**{i}" not in text]
    assert not missing
    assert text.count("[decision]") >= 8


def _api_md() -> str:
    return (DOCS / "api.md").read_text(encoding="utf-8")


#: The first line of a docs block that continues the one before it (it runs after that one, in its namespace).
CONTINUES = re.compile(r"^# continues the (block|example) above", re.IGNORECASE)


def python_blocks(markdown: str) -> list[str]:
    """The ```python blocks of a markdown text, in order."""
    return re.findall(r"^```python\n(.*?)^```", markdown, re.MULTILINE | re.DOTALL)


def runnable_groups(markdown: str) -> list[tuple[int, str]]:
    """The blocks as they run: each alone, or joined to the one before when it says that it continues it
    (the index is that of the group's last block)."""
    groups: list[tuple[int, str]] = []
    for i, block in enumerate(python_blocks(markdown)):
        if CONTINUES.match(block) and groups:
            groups[-1] = (i, groups[-1][1] + block)
        else:
            groups.append((i, block))
    return groups


def free_names(code: str) -> list[str]:
    """Names that ``code`` reads but neither defines, imports nor finds among the builtins (a block
    that uses ``np`` without importing it does not run alone)."""
    import builtins

    tree = ast.parse(code)
    defined, used = set(dir(builtins)), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (used if isinstance(node.ctx, ast.Load) else defined).add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.arg):
            defined.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            defined.add(node.name)
    return sorted(used - defined)


def _markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def test_every_docs_block_runs_alone_or_says_it_continues() -> None:
    """Issue 32: every python block of the README and docs/ defines or imports every name it uses,
    unless it starts with "# continues the block above" (the blocks that need a library or minutes
    are run by the tests of their sections; docs/api.md's all run below)."""
    bad = []
    for path in _markdown_files():
        for i, code in runnable_groups(path.read_text(encoding="utf-8")):
            missing = free_names(code)
            if missing:
                bad.append(f"{path.relative_to(ROOT)}, python block {i}: uses {', '.join(missing)} undefined")
    assert not bad, "\n".join(bad)


def test_free_names_and_continued_blocks() -> None:
    text = "```python\nx = np.zeros(3)\n```\n\n```python\n# continues the block above\nprint(x, y)\n```\n"
    groups = runnable_groups(text)
    assert [i for i, _ in groups] == [1] and free_names(groups[0][1]) == ["np", "y"]
    assert free_names("import numpy as np\nfor k in range(2):\n    print(np.zeros(k))\n") == []
    assert free_names("def f(a):\n    return a + b\n") == ["b"]


def test_api_md_examples_run(capsys) -> None:
    """The python blocks of docs/api.md run as written, each alone (or after the block it continues)."""
    groups = runnable_groups(_api_md())
    assert len(groups) >= 10
    for i, code in groups:
        exec(compile(code, f"docs/api.md, python block {i}", "exec"), {})
    out = capsys.readouterr().out
    assert "COMMAND - Phase I" in out and "illegal action: game 0" in out and "num_envs must be" in out


def test_api_md_covers_the_api() -> None:
    """docs/api.md names everything ``aos_env.core`` exports, every public State field in its table
    and every decision phase."""
    from aos_env import core

    text = _api_md()
    words = set(re.findall(r"\w+", text))
    assert not [n for n in core.__all__ if n not in words], "core names missing from docs/api.md"
    table = text.split("| field | shape, dtype | meaning |", 1)[1].split("\n\n", 1)[0]
    assert not [f for f in core.PUBLIC_FIELDS if f"`{f}`" not in table], "public fields missing from the table"
    assert not [p.name for p in core.OBS_PHASES if f"`{p.name}`" not in text], "phases missing"


# ---- the repo: its files and what .gitignore leaves out ------------------------------------------


def _walk() -> list[str]:
    """Every file under the root but hidden folders and ignored paths (when git is not there)."""
    out = []
    for folder, dirs, files in os.walk(ROOT):
        rel = PurePosixPath(Path(folder).relative_to(ROOT).as_posix())
        dirs[:] = [d for d in dirs if not d.startswith(".") and not _ignored(str(rel / d), True)]
        out += [str(rel / f) if str(rel) != "." else f for f in files if not _ignored(str(rel / f))]
    return out


@cache
def tracked_files() -> tuple[str, ...]:
    """The repo's files: tracked ones and new ones that are not ignored (``git ls-files``; a walk of
    the folder where git is not available)."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
            timeout=60,
        )
        files = sorted({f for f in out.stdout.decode().split("\0") if f and (ROOT / f).exists()})
    except (OSError, subprocess.SubprocessError):
        files = []
    return tuple(sorted(files or _walk()))


@cache
def _ignore_patterns() -> tuple[str, ...]:
    path = ROOT / ".gitignore"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return tuple(line.strip() for line in lines if line.strip() and not line.startswith(("#", "!")))


def _ignored(path: str, is_dir: bool = False) -> bool:
    """Whether ``.gitignore`` matches ``path`` or one of its folders (the simple patterns it has:
    names, globs, ``dir/`` and ``a/b/``)."""
    parts = PurePosixPath(path).parts
    for pattern in _ignore_patterns():
        dir_only = pattern.endswith("/")
        pat = pattern.strip("/")
        for i in range(1, len(parts) + 1):
            if dir_only and i == len(parts) and not is_dir:
                continue  # "runs/" matches the folder, not a file named runs
            if "/" in pat:
                if fnmatch.fnmatchcase("/".join(parts[:i]), pat):
                    return True
            elif fnmatch.fnmatchcase(parts[i - 1], pat):
                return True
    return False


@cache
def known_paths() -> frozenset[str]:
    """Tracked files and every folder that holds one, as root-relative POSIX paths."""
    out = set()
    for f in tracked_files():
        p = PurePosixPath(f)
        out.add(str(p))
        out.update(str(parent) for parent in p.parents if str(parent) != ".")
    return frozenset(out)


@cache
def top_level_folders() -> tuple[str, ...]:
    return tuple(sorted({PurePosixPath(f).parts[0] for f in tracked_files() if len(PurePosixPath(f).parts) > 1}))


def exists(path: str, base: str = "") -> bool:
    """Whether ``path`` (relative to the folder ``base`` of the repo) is a tracked file or a folder of one."""
    joined = os.path.normpath(os.path.join(base, path)).replace(os.sep, "/")
    return joined in known_paths() or joined == "."


def scanned_files() -> list[str]:
    return [f for f in tracked_files() if any(fnmatch.fnmatchcase(PurePosixPath(f).name, g) for g in SCANNED)]


# ---- what a file says ----------------------------------------------------------------------------


#: What a piece of text is, which decides the rules that apply to it.
MARKDOWN = "markdown"  # a markdown page or notebook cell: every rule
PROSE = "prose"  # a docstring, a comment, a TOML file: paths and file names
CODE = "code"  # another string literal of Python code: repo paths only (bare names there are
#               usually files a program writes, such as "table.md" or "model.zip")


@dataclass(frozen=True)
class Text:
    """A piece of a file to scan: a whole file, a notebook cell, or a Python string or comment."""

    file: str
    where: str  # "README.md" or "notebooks/x.ipynb cell 3"
    line: int  # line of the file (or cell) where the piece starts
    text: str
    kind: str


def _add_span(spans: dict[int, list[tuple[int, int]]], node: ast.AST) -> None:
    for line in range(node.lineno, node.end_lineno + 1):
        start = node.col_offset if line == node.lineno else 0
        end = node.end_col_offset if line == node.end_lineno else 1 << 30
        spans.setdefault(line, []).append((start, end))


def _python_pieces(file: str, where: str, source: str) -> list[Text]:
    """The comments and string literals of Python source: docstrings (a string that is a statement
    of its own) are prose, other strings code; f-strings are templates and left out."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return [Text(file, where, 1, source, PROSE)]
    out: list[Text] = []
    docstrings: set[int] = set()  # ids of string constants that are statements of their own
    in_fstrings: set[int] = set()  # ids of the constant parts of f-strings
    spans: dict[int, list[tuple[int, int]]] = {}  # line -> (start, end) byte columns inside string literals
    for n in ast.walk(tree):  # breadth first: a parent comes before its children
        if isinstance(n, ast.Expr):
            docstrings.add(id(n.value))
        elif isinstance(n, ast.JoinedStr):
            in_fstrings.update(id(v) for v in n.values)
            _add_span(spans, n)
        elif isinstance(n, ast.Constant) and isinstance(n.value, (str, bytes)) and id(n) not in in_fstrings:
            _add_span(spans, n)
            if isinstance(n.value, str):
                out.append(Text(file, where, n.lineno, n.value, PROSE if id(n) in docstrings else CODE))
    for i, line in enumerate(source.splitlines(), 1):
        if "#" not in line:
            continue
        raw = line.encode()
        at = raw.find(b"#")
        while at >= 0 and any(a <= at < b for a, b in spans.get(i, ())):
            at = raw.find(b"#", at + 1)
        if at >= 0:
            out.append(Text(file, where, i, raw[at:].decode(), PROSE))
    return out


#: Files left out of the scan: this one holds made-up broken references on purpose.
NOT_SCANNED = ("tests/docs/test_docs.py",)


@cache
def texts() -> tuple[Text, ...]:
    out: list[Text] = []
    for f in scanned_files():
        if f in NOT_SCANNED:
            continue
        raw = (ROOT / f).read_text(encoding="utf-8")
        if f.endswith(".ipynb"):  # the cells' sources; outputs are what a run printed
            for i, cell in enumerate(json.loads(raw)["cells"]):
                src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
                if cell["cell_type"] == "code":
                    out += _python_pieces(f, f"{f} cell {i}", src)
                else:
                    out.append(Text(f, f"{f} cell {i}", 1, src, MARKDOWN))
        elif f.endswith(".py"):
            # Parsing is the slow part, and only tells prose from code: a file whose every mention
            # resolves even when read as prose needs none.
            whole = Text(f, f, 1, raw, PROSE)
            if all(resolve_path(m, f) for m in path_mentions(whole)):
                out.append(whole)
            else:
                out += _python_pieces(f, f, raw)
        else:
            out.append(Text(f, f, 1, raw, MARKDOWN if f.endswith(".md") else PROSE))
    return tuple(out)


_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s)\]>`'\"]*", re.IGNORECASE)
_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_TEMPLATE = re.compile(r"[{}<>*$%]")
_PATH_CHARS = r"[\w./{}<>*$%-]"
_MD_NAME = re.compile(rf"(?<![\w/.-])({_PATH_CHARS}*\w\.md)\b(?![\w/-])")
_PY_NAME = re.compile(r"(?<![\w/.-])(\w+\.py)\b(?![\w/.-])")
_DOTTED = re.compile(r"(?<![\w./-])((?:aos_env|agents|benchmarks|train)(?:\.\w+)+|core(?:\.\w+)+)")
_FILE_SUFFIXES = (".py", ".md", ".toml", ".json", ".ipynb", ".npz", ".zip", ".txt", ".svg", ".png", ".html")
_TRAILING = ".,:;"


def _repo_path_re() -> re.Pattern:
    folders = "|".join(re.escape(d) for d in top_level_folders())
    return re.compile(rf"(?<![\w/.-])((?:\.\./)*(?:{folders})/{_PATH_CHARS}*)")


def _blank(pattern: re.Pattern, text: str) -> str:
    """``text`` with the matches of ``pattern`` replaced by spaces (offsets and lines kept)."""
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _line(t: Text, offset: int) -> int:
    return t.line + t.text.count("\n", 0, offset)


@dataclass(frozen=True)
class Mention:
    where: str
    line: int
    text: str
    rule: str


def link_mentions(t: Text) -> list[Mention]:
    """Markdown links outside code, with their targets (web addresses and anchors left out)."""
    if t.kind != MARKDOWN:
        return []
    prose = _blank(_INLINE_CODE, _blank(_FENCE, t.text))
    out = []
    for m in _LINK.finditer(prose):
        target = m.group(1)
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
            continue  # https:, mailto:
        out.append(Mention(t.where, _line(t, m.start()), target, "link"))
    return out


def path_mentions(t: Text) -> list[Mention]:
    """Repo paths, markdown file names and bare Python file names, outside web addresses and
    templates; in code strings, repo paths only. A name that a repo path already covers counts once."""
    text = _blank(_URL, t.text)
    rules = [("repo path", _repo_path_re())]
    if t.kind != CODE:
        rules += [("markdown file", _MD_NAME), ("python file", _PY_NAME)]
    out, seen = [], set()
    for rule, pattern in rules:
        for m in pattern.finditer(text):
            s = m.group(1).rstrip(_TRAILING)
            if _TEMPLATE.search(s) or any(a <= m.start(1) < b for a, b in seen):
                continue
            seen.add((m.start(1), m.end(1)))
            out.append(Mention(t.where, _line(t, m.start(1)), s, rule))
    return out


def dotted_mentions(t: Text) -> list[Mention]:
    """Dotted names of the project's modules in markdown."""
    if t.kind != MARKDOWN:
        return []
    text = _blank(_URL, t.text)
    out = []
    for m in _DOTTED.finditer(text):
        s = m.group(1)
        if s.endswith(_FILE_SUFFIXES):
            continue  # train.py, a file name: the path rules check it
        out.append(Mention(t.where, _line(t, m.start()), s, "module name"))
    return out


# ---- resolving -----------------------------------------------------------------------------------


def slug(heading: str) -> str:
    """A heading's anchor, as GitHub makes it: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@cache
def anchors(path: str) -> frozenset[str]:
    """The anchors of a markdown file's headings."""
    return heading_anchors((ROOT / path).read_text(encoding="utf-8"))


def heading_anchors(markdown: str) -> frozenset[str]:
    """The anchors of a markdown text's headings (a repeated heading gets -1, -2, ...)."""
    text = _blank(_FENCE, markdown)
    out: set[str] = set()
    for heading in re.findall(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", text, re.MULTILINE):
        base = slug(heading)
        name, i = base, 0
        while name in out:
            i += 1
            name = f"{base}-{i}"
        out.add(name)
    return frozenset(out)


def resolve_link(m: Mention, t: Text) -> bool:
    """A link: its file exists, and a ``#anchor`` is a heading of the markdown page it points into
    (``#anchor`` alone: of the page the link is on)."""
    target, _, anchor = m.text.partition("#")
    if not anchor:
        return resolve_path(m, t.file)
    if not target:
        return not t.file.endswith(".md") or anchor in heading_anchors(t.text)
    if not resolve_path(m, t.file):
        return False
    page = os.path.normpath(os.path.join(str(PurePosixPath(t.file).parent), target)).replace(os.sep, "/")
    return not page.endswith(".md") or page not in known_paths() or anchor in anchors(page)


def resolve_path(m: Mention, file: str) -> bool:
    """Whether a link or path mention names something the repo has (or something it ignores)."""
    target = m.text.split("#", 1)[0].split("?", 1)[0]
    if not target:
        return True
    base = str(PurePosixPath(file).parent)
    if m.rule == "python file":
        return any(PurePosixPath(f).name == target for f in tracked_files())
    if m.rule == "repo path":
        if not (PurePosixPath(target).suffix or target.endswith("/")):
            return True  # neither a file nor a folder (a Gymnasium id such as aos_env/AgeOfSummoners-v1)
        candidates = [base] if target.startswith("../") else ["", base]
    elif m.rule == "link":
        candidates = [base]
    else:  # a markdown file name: next to the mentioning file, from the root, or in docs/
        candidates = [base, ""] + (["docs"] if "/" not in target else [])
    target = target.rstrip("/") or "."
    for b in candidates:
        if exists(target, b):
            return True
        joined = os.path.normpath(os.path.join(b, target)).replace(os.sep, "/")
        if not joined.startswith("..") and _ignored(joined, m.text.endswith("/")):
            return True  # something the programs write (runs/, benchmarks/results/)
    return False


@cache
def module_names(path: str) -> frozenset[str]:
    """Top-level names a module defines: functions, classes, assignments, imports, ``__all__``."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for n in ast.walk(target):
                    if isinstance(n, ast.Name):
                        names.add(n.id)
            if isinstance(node, ast.Assign) and any(
                isinstance(x, ast.Name) and x.id == "__all__" for x in node.targets
            ):
                names.update(ast.literal_eval(node.value))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return frozenset(names)


def module_file(parts: tuple[str, ...]) -> str | None:
    stem = "/".join(parts)
    for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
        if candidate in known_paths():
            return candidate
    return None


#: The flat module paths before 0.4.0 -> their modules since (removed in 0.5.0): the CHANGELOG's
#: history names them, and only there do they resolve.
MOVED_BEFORE_0_4 = {
    "aos_env.checks": "aos_env.base.checks",
    "aos_env.files": "aos_env.base.files",
    "aos_env.names": "aos_env.base.names",
    "aos_env.render": "aos_env.view.render",
    "aos_env.svg": "aos_env.view.svg",
    "aos_env.replay": "aos_env.view.replay",
    "aos_env.positions": "aos_env.tools.positions",
    "aos_env.determinise": "aos_env.tools.determinise",
    "aos_env.docs": "aos_env.tools.docs",
    "aos_env.aec_env": "aos_env.envs.aec",
    "aos_env.gym_env": "aos_env.envs.gym",
    "aos_env.learner_env": "aos_env.envs.learner",
    "aos_env.spaces": "aos_env.envs.spaces",
    "aos_env.sb3": "aos_env.integrations.sb3",
    "aos_env.rllib": "aos_env.integrations.rllib",
    "aos_env.play": "aos_env.apps.play",
    "aos_env.web": "aos_env.apps.web",
}
HISTORY = "CHANGELOG.md"


def resolve_dotted(name: str, history: bool = False) -> bool:
    """``aos_env.x.y.Name.attr``: the longest module prefix exists and defines ``Name`` (what
    follows it, attributes of that name, is not checked). With ``history`` (the CHANGELOG), a
    module path before 0.4.0 resolves at its later path."""
    if history and name in REMOVED_IN_0_5:
        return True
    parts = tuple(name.split("."))
    if parts[0] == "core":
        parts = ("aos_env",) + parts
    for i in range(len(parts), 1, -1) if history else ():
        if ".".join(parts[:i]) in MOVED_BEFORE_0_4:
            parts = tuple(MOVED_BEFORE_0_4[".".join(parts[:i])].split(".")) + parts[i:]
            break
    for i in range(len(parts), 1, -1):  # an agents module path before 0.5.0, as the CHANGELOG names it
        if ".".join(parts[:i]) in AGENTS_MOVED:
            parts = tuple(AGENTS_MOVED[".".join(parts[:i])].split(".")) + parts[i:]
            break
    for i in range(len(parts), 0, -1):
        path = module_file(parts[:i])
        if path is None:
            continue
        rest = parts[i:]
        return not rest or rest[0].startswith("__") or rest[0] in module_names(path)
    return False


def broken_references() -> tuple[list[str], int]:
    """Every mention that does not resolve, as "where:line: rule 'text'", and how many were checked."""
    bad, checked = {}, 0
    for t in texts():
        for m in link_mentions(t) + path_mentions(t):
            checked += 1
            if not (resolve_link(m, t) if m.rule == "link" else resolve_path(m, t.file)):
                bad.setdefault(
                    (m.where, m.line, m.text),
                    f"{m.where}:{m.line}: {m.rule} {m.text!r} names no file, folder or heading of the repo",
                )
        for m in dotted_mentions(t):
            checked += 1
            if not resolve_dotted(m.text, history=t.file == HISTORY):
                bad.setdefault(
                    (m.where, m.line, m.text),
                    f"{m.where}:{m.line}: {m.rule} {m.text!r} is not a module of the repo or a name in one",
                )
    return list(bad.values()), checked


# ---- the tests -----------------------------------------------------------------------------------


def test_every_reference_names_something_the_repo_has() -> None:
    bad, checked = broken_references()
    assert checked > 200, f"only {checked} references found: the scanner is broken"
    assert not bad, "broken references:\n" + "\n".join(bad)


#: The original specification's file names, and its folder (built from parts so that this file
#: does not mention them itself).
_SPEC = re.compile(
    r"\b(?:" + "|".join(("INTER" + "FACE", "RU" + "LES", "CA" + "RDS", "ST" + "YLE")) + r")\.md\b"
    r"|\bRU"
    r"LES R\d"  # clauses cited by the spec's name ("RULES R9") rather than by docs/rules.md
    r"|(?:\.\./|/work/)sha"
    r"red\b"
)


def test_nothing_names_the_original_specification() -> None:
    hits = []
    for t in texts():
        for m in _SPEC.finditer(t.text):
            hits.append(
                f"{t.where}:{_line(t, m.start())}: {m.group(0)!r} (cite docs/api.md, docs/rules.md or docs/cards.md)"
            )
    assert not hits, "\n".join(hits)


# ---- the scanner itself, on made-up text ----------------------------------------------------------


def _scan(text: str, file: str = "docs/page.md", kind: str = MARKDOWN) -> list[str]:
    """What the rules find broken in ``text``, as if it were ``file``."""
    t = Text(file, file, 1, text, kind)
    bad = [
        m.text
        for m in link_mentions(t) + path_mentions(t)
        if not (resolve_link(m, t) if m.rule == "link" else resolve_path(m, file))
    ]
    dotted = [m.text for m in dotted_mentions(t) if not resolve_dotted(m.text, history=file == HISTORY)]
    return list(dict.fromkeys(bad + dotted))


def test_a_module_path_before_0_4_resolves_in_the_changelog_only() -> None:
    text = "`aos_env.aec_env.raw_env` and `aos_env.positions` moved; `aos_env.cards.DEFAULT` stays."
    assert _scan(text, "docs/page.md") == ["aos_env.aec_env.raw_env", "aos_env.positions"]
    assert _scan(text, HISTORY) == []


def test_scanner_finds_broken_references() -> None:
    text = "\n".join(
        [
            "See [the rules](rules.md), [missing](nowhere.md) and ![a picture](gone.png).",
            "[R6](rules.md#r6-the-seven-actions) but not [R99](rules.md#r99-nothing) or [here](#no-such-heading).",
            "The engine: `aos_env/core/np_engine/abilities.py`, not `aos_env/core/payment.py` or turn.py.",
            "Also `aos_env/core/nb_engine/` but not `aos_env/engines/`; and `gone.md`.",
            "Modules: `aos_env.envs.opponents.OpponentPool`, `python -m agents.evaluation.evaluate`, `core.OBS_DIM`,",
            "but not `aos_env.nothing`, `core.NO_SUCH_NAME` or `agents.evaluation.matches.no_such_function`.",
        ]
    )
    assert _scan(text) == [
        "nowhere.md",
        "gone.png",
        "rules.md#r99-nothing",
        "#no-such-heading",
        "aos_env/core/payment.py",
        "aos_env/engines/",
        "gone.md",
        "aos_env.nothing",
        "core.NO_SUCH_NAME",
        "agents.evaluation.matches.no_such_function",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "[PettingZoo](https://pettingzoo.farama.org/docs/missing.md) and https://github.com/x/y/blob/main/docs/x.md",
        "# A page\n\n[top](#a-page), `runs/<name>/model.zip`, `runs/default/model.zip`, `agents/data/bot_{p}p.npz`",
        "written to `benchmarks/results/results.json`; `replays/game_00000.json`; `aos_env/AgeOfSummoners-v1`",
        "```python\nx = a[0](seed=3)\n```\nand `f[k](seed=4)`",
        "`train.py`, `tests/helpers.py`, [the README](../README.md), README.md, `aos_env.__file__`",
    ],
)
def test_scanner_leaves_out_what_is_not_a_missing_reference(text: str) -> None:
    assert _scan(text) == []


def test_scanner_sees_the_specification_names() -> None:
    for text in ("see " + "INTER" + "FACE.md", "(" + "RU" + "LES R9)", "../sha" + "red/cards.toml"):
        assert _SPEC.search(text), text
    assert not _SPEC.search("docs/rules.md and docs/cards.md, CARDS.names, R9")
