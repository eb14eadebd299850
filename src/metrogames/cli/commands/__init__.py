"""The ``metrogames`` commands, one module per kind of work (:mod:`metrogames.cli.main`
registers them on :data:`metrogames.cli.app.app` in the order ``--help`` lists them)."""
