"""Heavy jobs: the work whose cost a client chooses, out of the serving processes.

Hints, the searching bots' decisions (``hard``, ``expert``), hindsight analyses, replays of
uploaded records, the daily expert's game and password hashing run in worker processes of
their own, never in the interpreter that serves moves: a process pool per lane in the
single-process start (:mod:`.pool`), a job queue on Redis with job workers of its own in the
scale-out start (:mod:`.queue`, :mod:`.worker`). :class:`~.service.Jobs` is the interface the
routes and services use; the jobs themselves are plain functions of plain data, above the
features they compute for (:mod:`metrogames.web.work`, given to :class:`~.service.Jobs` as a
:class:`~.kinds.Work`); their lanes, priorities and time limits are in :mod:`.kinds`; what a
job process runs around any job is :mod:`.process`.

The package imports nothing itself: a job worker imports the job functions' module without the
server's modules.
"""
