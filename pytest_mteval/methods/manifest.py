"""method.json and method cards: their schemas, and the dependency class each manifest implies.

The dependency class (S < O < A1 < A2 < X) decides whether a method can run in the sandbox and
be transferred to a language community, so the declared class is re-derived from the declared
dependencies and a mismatch is an error, never a warning.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from pytest_mteval.errors import ManifestError as ManifestError
from pytest_mteval.json_files import read_json
from pytest_mteval.languages import canonical
from pytest_mteval.methods.harness_manifest import is_harness_manifest, mapped_manifest
from pytest_mteval.methods.licences import (
    LicenceSyntaxError,
    allows_redistribution,
    why_not_redistributable,
)

#: The runtimes the harness starts a runner for itself (run/runtimes.py); any other is a
#: command list naming an executable that speaks the runner protocol (docs/runner-protocol.md).
KnownRuntime = Literal["python", "node"]
PYTHON_ENTRY = r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$"
NODE_ENTRY = r"^(?!/)(?!.*(?:^|/)\.\.(?:/|$))[\w./-]+\.(?:js|cjs|mjs)$"

MethodClass = Literal["raw-llm", "coached-llm", "pipeline", "custom-plugin", "api", "human"]
DependencyClass = Literal["S", "O", "A1", "A2", "X"]
DEPENDENCY_ORDER: tuple[DependencyClass, ...] = ("S", "O", "A1", "A2", "X")


class Dependency(BaseModel):
    """One artefact or service a method needs (method interface spec, dependency manifest)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    kind: Literal["data", "model", "software", "service"]
    license: str
    access: Literal["bundled", "mirrored", "gateway", "external-api"]
    source: str
    pin: str | None = None
    substitutable: bool | None = None
    redistributable: bool
    transferable: bool
    notes: str | None = None

    @model_validator(mode="after")
    def _conditional_fields(self) -> Dependency:
        if self.access == "mirrored" and not self.pin:
            raise ValueError(f"dependency {self.id!r}: 'pin' is required for access 'mirrored'")
        if self.access in ("gateway", "external-api") and self.substitutable is None:
            raise ValueError(
                f"dependency {self.id!r}: 'substitutable' is required for access {self.access!r}"
            )
        return self

    @model_validator(mode="after")
    def _rights_follow_the_licence(self) -> Dependency:
        """A licence that withholds redistribution cannot be declared redistributable."""
        try:
            allowed = allows_redistribution(self.license)
        except LicenceSyntaxError as exc:
            raise ValueError(f"dependency {self.id!r}: {exc}") from None
        claimed = [f"{k}: true" for k in ("redistributable", "transferable") if getattr(self, k)]
        if allowed is False and claimed:
            raise ValueError(
                f"dependency {self.id!r}: license {self.license!r} does not allow "
                f"redistribution ({why_not_redistributable(self.license)}), yet it is declared "
                f"{' and '.join(claimed)}"
            )
        return self

    def contributes(self) -> DependencyClass:
        """The class this dependency alone gives a method (spec table 'Derivação de classe')."""
        no_rights = allows_redistribution(self.license) is False or not self.redistributable
        if self.access == "bundled":
            return "X" if no_rights or not self.transferable else "S"
        if self.access == "mirrored":
            return "X" if no_rights else "O"
        if self.access == "gateway" and self.substitutable:
            return "A1"
        return "A2"


#: The segments an exposure may name (the corpus envelope's, spec §2.3).
ExposedSegment = Literal["development", "diagnostic", "gold_standard", "held_out"]
SHA256 = r"^[0-9a-f]{64}$"


class Exposure(BaseModel):
    """A declared use of a corpus's entries by the method (spec §9.2.2: few-shot use of
    development entries is allowed but must be declared; §9.2.1: none of gold_standard or
    held_out). Names the corpus by ``corpus`` (its ``dataset.id``, with ``version`` to narrow
    it) or by ``sha256`` (of the corpus file), and the segments whose entries it used."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    use: Literal["few-shot", "coaching", "dictionary", "fine-tuning", "other"]
    corpus: str | None = Field(default=None, min_length=1)
    version: str | None = Field(default=None, min_length=1)
    sha256: str | None = Field(default=None, pattern=SHA256)
    segments: list[ExposedSegment] = Field(min_length=1)
    #: The entry ids used, when not the whole segment.
    entry_ids: list[str | int] | None = None
    notes: str | None = None

    @model_validator(mode="after")
    def _names_a_corpus(self) -> Exposure:
        if self.corpus is None and self.sha256 is None:
            raise ValueError("an exposure names its corpus: give 'corpus' (dataset id) or 'sha256'")
        if self.version is not None and self.corpus is None:
            raise ValueError("'version' narrows 'corpus': give the corpus's dataset id too")
        return self

    def names(self, dataset_id: str, version: str, sha256: str) -> bool:
        """Whether this declaration is about the corpus with these identifiers."""
        if self.sha256 is not None and self.sha256 == sha256:
            return True
        if self.corpus is None or self.corpus != dataset_id:
            return False
        return self.version is None or self.version == version


def _check_entry(field: str, runtime: str, entry: str) -> None:
    """A python entry point is ``module:Class``; a node one a .js file inside the folder."""
    if runtime == "python" and not re.match(PYTHON_ENTRY, entry):
        raise ValueError(f"field {field}: a python entry point is module:Class, got {entry!r}")
    if runtime == "node" and not re.match(NODE_ENTRY, entry):
        raise ValueError(
            f"field {field}: a node entry point is a .js, .cjs or .mjs file inside the method's "
            f"folder, got {entry!r}"
        )


def _covers(declared: str, actual: str) -> bool:
    return declared.strip() == "*" or canonical(declared) == canonical(actual)


def derive_dependency_class(dependencies: list[Dependency]) -> DependencyClass:
    """The most restrictive class among the dependencies; S for none."""
    classes = [d.contributes() for d in dependencies] or ["S"]
    return max(classes, key=DEPENDENCY_ORDER.index)


class MethodArg(BaseModel):
    """One ``--mteval-method-arg`` a method reads: its type, and whether it is a secret
    (a secret's value never reaches the run card or the cache's files)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["string", "number", "integer", "boolean", "path"] = "string"
    secret: bool = False
    description: str | None = None


class MethodManifest(BaseModel):
    """method.json: what a method is, where its code is, and what it depends on."""

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)

    name: str
    method_id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    method_class: MethodClass = Field(alias="class")
    #: The code of the manifest's runtime: ``module:Class`` for python, a file of the folder
    #: (``translate.js``) for node, anything the command reads for a command list.
    entry_point: str = Field(min_length=1)
    #: How the harness starts the method's runner: ``python`` (default), ``node``, or a
    #: command (a list: ``["./runner", "--flag"]``) that speaks the runner protocol itself.
    runtime: str | list[str] = "python"
    #: The entry points of the other runtimes the method also ships (``{"node": "translate.js"}``),
    #: chosen with ``--mteval-runtime``.
    entry_points: dict[KnownRuntime, str] = Field(default_factory=dict)
    supported_pairs: list[str] = Field(min_length=1)
    dependency_class: DependencyClass
    dependencies: list[Dependency]
    description: str | None = None
    #: The method args it reads; None (absent) accepts any arg, as before args were declared.
    args: dict[str, MethodArg] | None = None
    #: Ids of corpora (``dataset.id``) the method's own data comes from: on those it is an
    #: oracle, its score a ceiling rather than a fair result, and the run card says so.
    oracle_for: list[str] = Field(default_factory=list)
    #: Declared exposure to evaluation data (few-shot or coaching use of a corpus's entries):
    #: the run card records it, and flags a run scored on the entries it names.
    exposure: list[Exposure] = Field(default_factory=list)
    #: Environment variables the method needs: the runner's environment is cleared, and only
    #: these (and PATH, HOME, LANG) are passed to it; never the corpus key's variable.
    env: list[Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]] = Field(
        default_factory=list
    )

    @model_validator(mode="after")
    def _entry_points_fit_runtimes(self) -> MethodManifest:
        if isinstance(self.runtime, list):
            if not self.runtime or not all(self.runtime):
                raise ValueError("field 'runtime': a command is a list of non-empty strings")
        elif self.runtime not in ("python", "node"):
            raise ValueError(
                f"field 'runtime': {self.runtime!r} is not python or node (a command is a list: "
                '["./runner"])'
            )
        else:
            _check_entry("'entry_point'", self.runtime, self.entry_point)
        for runtime, entry in self.entry_points.items():
            if runtime == self.runtime:
                raise ValueError(
                    f"field 'entry_points.{runtime}': {runtime} is the runtime of entry_point"
                )
            _check_entry(f"'entry_points.{runtime}'", runtime, entry)
        return self

    def entry_for(self, runtime: str) -> str | None:
        """The entry point of ``runtime`` (the manifest's own, or one of ``entry_points``)."""
        if runtime == self.runtime_name:
            return self.entry_point
        return {str(k): v for k, v in self.entry_points.items()}.get(runtime)

    @property
    def runtime_name(self) -> str:
        """``python``, ``node`` or ``command``."""
        return self.runtime if isinstance(self.runtime, str) else "command"

    @model_validator(mode="after")
    def _class_matches_dependencies(self) -> MethodManifest:
        derived = derive_dependency_class(self.dependencies)
        if derived != self.dependency_class:
            raise ValueError(
                f"dependency_class is {self.dependency_class!r} but the declared dependencies "
                f"make it {derived!r}"
            )
        return self

    def supports(self, source: str, target: str) -> bool:
        """Whether 'src>tgt' (or a '*' wildcard on either side) covers the corpus pair."""
        for pair in self.supported_pairs:
            src, _, tgt = pair.partition(">")
            if pair == "*" or (_covers(src, source) and _covers(tgt, target)):
                return True
        return False


class MethodCard(BaseModel):
    """A public description of a method (what, not how), embedded in the run card."""

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)

    method_id: str
    name: str
    method_class: MethodClass = Field(alias="class")
    description: str
    author: str | None = None
    tools_used: list[str] = Field(default_factory=list)
    open_source: bool | None = None
    dependency_class: DependencyClass | None = None
    supported_pairs: list[str] = Field(default_factory=list)


#: What the "all problems at once" message shows, and docs/first-hour.md too.
MINIMAL_MANIFEST = (
    '{"name": "My method", "method_id": "my-method", "class": "custom-plugin", '
    '"entry_point": "my_method:MyMethod", "supported_pairs": ["*"], "dependency_class": "S", '
    '"dependencies": []}'
)


def load_manifest(path: Path) -> MethodManifest:
    """Our method.json, or a reference harness's mapped onto it (``harness_manifest.py``)."""
    raw = _read_json(path)
    if is_harness_manifest(raw):
        raw = mapped_manifest(raw, get_args(MethodClass))
    return _validated(MethodManifest, path, raw)


def load_method_card(path: Path) -> MethodCard:
    return _validated(MethodCard, path)


M = TypeVar("M", bound=BaseModel)


def _validated(model: type[M], path: Path, given: Any = None) -> M:
    """The file (or its already mapped content, ``given``) as ``model``, or one ManifestError
    that lists every missing or wrong field (a user fixes them all in one go, not one per
    attempt)."""
    raw = _read_json(path) if given is None else given
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        problems = [_problem(err) for err in exc.errors()]
        if len(problems) == 1:
            raise ManifestError(f"{path}: {problems[0]}") from None
        hint = (
            f". A complete minimal method.json: {MINIMAL_MANIFEST}"
            if model is MethodManifest
            else ""
        )
        raise ManifestError(
            f"{path}: {len(problems)} problems: {'; '.join(problems)}{hint}"
        ) from None


def _problem(err: Any) -> str:
    where = ".".join(str(p) for p in err["loc"])
    message = str(err["msg"]).removeprefix("Value error, ")
    field = f"field {where!r}: " if where else ""
    if err["type"] == "missing":
        message = "required field is missing"
    return f"{field}{message}"


def _read_json(path: Path) -> Any:
    return read_json(path, "JSON file", ManifestError)
