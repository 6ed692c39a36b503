"""The ``pitch.v1`` protocol's hand-written side, shared by the SDK and the referee: conversions between
engine values and messages (``wire``), the dense observation tensor (``encoding``), batches
(``batching``) and decision-time histograms (``decision_times``).  ``pitch_sdk.proto`` holds the
generated message classes these build on."""
