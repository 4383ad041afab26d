"""method.json and method cards: their schemas, and the dependency class each manifest implies.

The dependency class (S < O < A1 < A2 < X) decides whether a method can run in the sandbox and
be transferred to a language community, so the declared class is re-derived from the declared
dependencies and a mismatch is an error, never a warning.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from pytest_mteval.errors import MtevalError, read_json
from pytest_mteval.languages import canonical
from pytest_mteval.methods.harness_manifest import is_harness_manifest, mapped_manifest

MethodClass = Literal["raw-llm", "coached-llm", "pipeline", "custom-plugin", "api", "human"]
DependencyClass = Literal["S", "O", "A1", "A2", "X"]
DEPENDENCY_ORDER: tuple[DependencyClass, ...] = ("S", "O", "A1", "A2", "X")


class ManifestError(MtevalError):
    """A method.json or method card that cannot be used; the message names file and field."""


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

    def contributes(self) -> DependencyClass:
        """The class this dependency alone gives a method (spec table 'Derivação de classe')."""
        no_rights = self.license.lower() == "none" or not self.redistributable
        if self.access == "bundled":
            return "X" if no_rights or not self.transferable else "S"
        if self.access == "mirrored":
            return "X" if no_rights else "O"
        if self.access == "gateway" and self.substitutable:
            return "A1"
        return "A2"


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
    entry_point: str = Field(pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
    supported_pairs: list[str] = Field(min_length=1)
    dependency_class: DependencyClass
    dependencies: list[Dependency]
    description: str | None = None
    #: The method args it reads; None (absent) accepts any arg, as before args were declared.
    args: dict[str, MethodArg] | None = None
    #: Environment variables the method needs: the runner's environment is cleared, and only
    #: these (and PATH, HOME, LANG) are passed to it; never the corpus key's variable.
    env: list[Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]] = Field(
        default_factory=list
    )

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
    raw = _read_json(path) if given is None else given
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        message = err["msg"].removeprefix("Value error, ")
        field = f"field {where!r}: " if where else ""
        if err["type"] == "missing":
            message = "required field is missing"
        raise ManifestError(f"{path}: {field}{message}") from None


def _read_json(path: Path) -> Any:
    return read_json(path, "JSON file", ManifestError)
