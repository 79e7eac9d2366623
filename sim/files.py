"""Reading the user's files: one place for the clear errors a missing or broken file gets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


def read_text(path: Path, error: type[ValueError], missing: str = "file not found", encoding: str = "utf-8") -> str:
    """The file's text; a problem becomes ``error("<path>: <what is wrong>")``."""
    try:
        return path.read_text(encoding=encoding)
    except FileNotFoundError:
        raise error(f"{path}: {missing}") from None
    except IsADirectoryError:
        raise error(f"{path}: is a folder, not a file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{path}: cannot read: {exc}") from None


def parse_yaml(text: str, path: Path, error: type[ValueError]) -> Any:
    """``yaml.safe_load`` (never anything else); a syntax error names the file and line."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise error(f"{path}{where}: not valid YAML: {problem}") from None
