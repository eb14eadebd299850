"""A learned position value: a small numpy network on a game's value features, and its weights
file (``docs/research.md``, "A learned position value").

The model: ``x`` the position's features (:class:`~metrogames.core.capabilities.ValueFeatured`,
shape ``(F,)``), standardised by the training set's mean and standard deviation; one hidden
layer of ``H`` tanh units (``H = 0``: linear); the output is the points the player is expected
to score from here to the end of the game (the final score minus ``scores()`` now). Inference is
numpy only (no deep-learning framework at play time): a batch of ``n`` positions, ``(n, F)`` ->
``(n,)``.

The weights file is a ``.npz`` (``numpy.savez``, no pickled objects) with the arrays ``mean``,
``std``, ``w1``, ``b1``, ``w2``, ``b2`` and ``header``, a JSON text: ``format``
(``metrogames-value``), ``format_version`` (1), ``game`` (the registry name), ``features``
(the features' version) and ``feature_names``, ``hidden``, a free ``training`` object (the
command, seed, data and error that made it) and ``checksum``, the SHA-256 of the arrays'
bytes. :func:`load_model` refuses a file that is not one, is corrupt (a checksum or shape that
does not match), or was trained for another game or another version of its features, with a
:class:`WeightsError` naming the file and the mismatch — never a silent fallback.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from metrogames.core.protocol import JsonObject, is_object

FORMAT = "metrogames-value"
FORMAT_VERSION = 1
ARRAYS = ("mean", "std", "w1", "b1", "w2", "b2")
"""The arrays of a weights file besides its header, in checksum order."""

Array = npt.NDArray[np.float64]


class WeightsError(ValueError):
    """A weights file that cannot be used: unreadable, corrupt, or made for another game or
    another version of its features. The message names the file and the mismatch."""


@dataclass
class ValueModel:
    """A value network (see the module docstring): ``game``, the features' ``version`` and
    ``names``, the standardisation ``mean``/``std`` ``(F,)``, the hidden layer ``w1`` ``(F, H)``
    and ``b1`` ``(H,)`` and the output ``w2`` ``(H,)`` (``(F,)`` when linear, ``w1`` then ``(F, 0)``) and ``b2``
    ``(1,)``; ``training``: how it was made (kept in the header)."""

    game: str
    version: str
    names: tuple[str, ...]
    mean: Array
    std: Array
    w1: Array
    b1: Array
    w2: Array
    b2: Array
    training: JsonObject = field(default_factory=dict)

    @property
    def hidden(self) -> int:
        """Hidden units (0: a linear model)."""
        return int(self.b1.shape[0])

    def predict(self, x: Array) -> Array:
        """Expected points still to come for each row of ``x`` ``(n, F)``: ``(n,)``."""
        z = (x - self.mean) / self.std
        if self.hidden:
            z = np.tanh(z @ self.w1 + self.b1)
        out: Array = z @ self.w2 + self.b2[0]
        return out

    def arrays(self) -> dict[str, Array]:
        """The model's arrays by name (:data:`ARRAYS`)."""
        return {name: getattr(self, name) for name in ARRAYS}

    def checksum(self) -> str:
        """SHA-256 (hex) of the arrays' float64 bytes in :data:`ARRAYS` order."""
        digest = hashlib.sha256()
        for name in ARRAYS:
            digest.update(np.ascontiguousarray(getattr(self, name), dtype=np.float64).tobytes())
        return digest.hexdigest()

    def header(self) -> JsonObject:
        """The JSON header of the weights file."""
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "game": self.game,
            "features": self.version,
            "feature_names": list(self.names),
            "hidden": self.hidden,
            "training": self.training,
            "checksum": self.checksum(),
        }

    def save(self, path: Path) -> None:
        """Write the weights file ``path`` (``.npz``; written whole, then renamed)."""
        tmp = path.with_name(path.name + ".tmp.npz")
        arrays: dict[str, Any] = {  # Any: np.savez types **arrays as its allow_pickle flag too
            "header": np.array(json.dumps(self.header(), sort_keys=True))
        }
        arrays.update(self.arrays())
        np.savez(tmp, **arrays)
        tmp.replace(path)


def load_model(path: Path, game: str, spec: tuple[str, Sequence[str]]) -> ValueModel:
    """The model of weights file ``path`` for ``game``, whose features are ``spec`` (version,
    names: ``ValueFeatured.value_feature_spec()``).

    Raises:
        WeightsError: the file is missing, unreadable or not a weights file; its checksum or
            an array's shape does not match; it was trained for another game, another
            version of the features or other feature names.
    """
    model = read_model(path)
    version, names = spec
    if model.game != game:
        raise WeightsError(f"{path}: weights for the game {model.game!r}, not {game!r}")
    if model.version != version:
        raise WeightsError(
            f"{path}: weights for the features {model.version!r}, the game has {version!r}"
        )
    if model.names != tuple(names):
        raise WeightsError(f"{path}: the feature names differ from those of {version!r}")
    return model


def read_model(path: Path) -> ValueModel:
    """The model of weights file ``path``, checked for its format, shapes and checksum (not
    for a game: :func:`load_model`).

    Raises:
        WeightsError: as :func:`load_model`.
    """
    try:
        with np.load(path, allow_pickle=False) as data:
            contents = {name: data[name] for name in data.files}
    except FileNotFoundError:
        raise WeightsError(f"{path}: no such weights file") from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise WeightsError(f"{path}: not a readable .npz weights file ({exc})") from None
    missing = [name for name in ("header", *ARRAYS) if name not in contents]
    if missing:
        raise WeightsError(f"{path}: not a weights file (no {', '.join(missing)})")
    try:
        header = json.loads(str(contents["header"]))
    except ValueError:
        raise WeightsError(f"{path}: its header is not JSON") from None
    if not is_object(header) or header.get("format") != FORMAT:
        raise WeightsError(f"{path}: not a {FORMAT} weights file")
    if header.get("format_version") != FORMAT_VERSION:
        raise WeightsError(
            f"{path}: format version {header.get('format_version')!r}, "
            f"this version reads {FORMAT_VERSION}"
        )
    names, training = header.get("feature_names"), header.get("training") or {}
    if not isinstance(names, list) or not is_object(training):
        raise WeightsError(f"{path}: a malformed header (feature_names, training)")
    try:
        model = ValueModel(
            game=str(header["game"]),
            version=str(header["features"]),
            names=tuple(str(n) for n in names),
            training=dict(training),
            **{name: np.asarray(contents[name], dtype=np.float64) for name in ARRAYS},
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise WeightsError(f"{path}: a malformed header ({exc!r})") from None
    _check_shapes(path, model)
    if header.get("checksum") != model.checksum():
        raise WeightsError(f"{path}: corrupt (its checksum does not match its arrays)")
    return model


def _check_shapes(path: Path, model: ValueModel) -> None:
    f, h = len(model.names), model.hidden
    want = {
        "mean": (f,),
        "std": (f,),
        "w1": (f, h),
        "b1": (h,),
        "w2": (h,) if h else (f,),
        "b2": (1,),
    }
    for name, shape in want.items():
        got = getattr(model, name).shape
        if got != shape:
            raise WeightsError(f"{path}: array {name} has shape {got}, expected {shape}")
    if not np.all(model.std > 0):
        raise WeightsError(f"{path}: array std has a value that is not positive")
