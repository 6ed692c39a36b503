"""Talking to a referee: the bot's stream and reconnection (``client``), one stream per referee of
an arena (``fleet``), and the answer a seat sends whatever the bot's code did (``answering``)."""
