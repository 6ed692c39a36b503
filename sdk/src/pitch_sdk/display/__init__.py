"""What ``pitch-bot`` shows: Rich tables and card text (``render``), a game told hand by hand
(``story``) and the variants table built from the preset registry (``variants_doc``)."""
