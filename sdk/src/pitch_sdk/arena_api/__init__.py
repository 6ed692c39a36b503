"""The arena's web API from a bot author's terminal: an account, its bots and tokens, and
hosted versions (:mod:`.client`), the saved login (:mod:`.credentials`), and the ``pitch-bot``
commands over them (:mod:`.commands`)."""
