"""Flat observations: an encoder's named fields as one NumPy array (a ``Box``), and back.

The layout is Gymnasium's own (``gymnasium.spaces.flatten``): the fields in the ``Dict``
space's key order (sorted by name), each raveled in C order, in the fields' common integer type
(``int16``). ``gymnasium.spaces.unflatten(fields_space, array)`` therefore reads a flat
observation too; :meth:`FlatLayout.unflatten` also reads a batch (a vectorised environment's
``(num_envs, size)``). Field by field: ``docs/research.md``, "Flat observations".
"""

from __future__ import annotations

from typing import Literal, Protocol

import numpy as np
from gymnasium import spaces

from metrogames.core.protocol import Action, State

ObservationMode = Literal["box", "fields"]
OBSERVATION_MODES: tuple[str, ...] = ("box", "fields")


def check_observation_mode(mode: object) -> ObservationMode:
    """``mode`` if it is an observation mode: ``box`` (one flat array) or ``fields`` (a
    ``Dict`` of named arrays).

    Raises:
        ValueError: any other value.
    """
    if mode not in OBSERVATION_MODES:
        raise ValueError(f"observation must be 'box' or 'fields', not {mode!r}")
    return "box" if mode == "box" else "fields"


class FlatLayout:
    """Where each named field of ``fields`` (an encoder's ``Dict`` space) lies in the flat
    array.

    Attributes:
        fields: the ``Dict`` space of named fields.
        space: the flat ``Box``: shape ``(size,)``, the fields' bounds, ``dtype`` their common
            integer type (``gymnasium.spaces.flatten_space(fields)``).
        size: the flat length.
        slices: field name -> its ``slice`` of the flat array.
    """

    def __init__(self, fields: spaces.Dict) -> None:
        self.fields = fields
        flat = spaces.flatten_space(fields)
        if not isinstance(flat, spaces.Box):  # only for spaces no encoder uses
            raise TypeError(f"{fields} does not flatten into a Box")
        self.space = flat
        self.size = int(flat.shape[0])
        self.slices: dict[str, slice] = {}
        self._shapes: dict[str, tuple[int, ...]] = {}
        start = 0
        for name, field in fields.spaces.items():
            self._shapes[name] = shape = tuple(field.shape or ())
            stop = start + int(np.prod(shape, dtype=np.int64))
            self.slices[name] = slice(start, stop)
            start = stop

    def flatten(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """One observation's fields as the flat array (shape ``(size,)``, ``space.dtype``),
        equal to ``gymnasium.spaces.flatten(fields, observation)``."""
        return np.concatenate(
            [observation[name].ravel() for name in self.slices], dtype=self.space.dtype
        )

    def unflatten(self, array: np.ndarray) -> dict[str, np.ndarray]:
        """The named fields of a flat observation, or of a batch of them: ``array`` of shape
        ``(..., size)`` gives each field shaped ``(..., *field_shape)``, in the field's own
        type (``int8`` for the 0/1 fields), as copies.

        Raises:
            ValueError: ``array``'s last axis is not ``size`` long.
        """
        array = np.asarray(array)
        if array.ndim == 0 or array.shape[-1] != self.size:
            raise ValueError(
                f"a flat observation has {self.size} numbers on its last axis, "
                f"not shape {array.shape}"
            )
        lead = array.shape[:-1]
        return {
            name: array[..., part].reshape(lead + self._shapes[name]).astype(self.fields[name].dtype)
            for name, part in self.slices.items()
        }


class FieldEncoder(Protocol):
    """What the environments observe with: an encoder's ``Dict`` space and its fields of a
    seat's view (:mod:`metrogames.envs.encoders`)."""

    space: spaces.Dict

    def encode(self, view: State[Action], seat: int) -> dict[str, np.ndarray]: ...


class FlatObservations:
    """The observation part every environment shares: ``encoder`` (its fields), ``layout``
    (their flat array) and ``observation`` (the mode asked for), set by the environment."""

    encoder: FieldEncoder
    layout: FlatLayout
    observation: ObservationMode

    def unflatten(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """The named fields of a flat observation (``observation="box"``), or of a batch of
        them (``(..., size)``, e.g. ``gymnasium.make_vec``'s ``(num_envs, size)``: each field
        gets the leading axes); :meth:`FlatLayout.unflatten`.

        Raises:
            ValueError: an array whose last axis is not the flat length.
        """
        return self.layout.unflatten(observation)

    def _encode(self, state: State[Action], seat: int) -> np.ndarray | dict[str, np.ndarray]:
        """``seat``'s view of ``state`` in the observation mode: one array or the fields."""
        fields = self.encoder.encode(state.view(seat), seat)
        return self.layout.flatten(fields) if self.observation == "box" else fields
