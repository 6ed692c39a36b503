"""Local play without a referee: bots play the real engine in-process (``local``), duplicate pairs
(``pairs``), scenarios written as JSON (``scenario``) and win rates with error bars (``stats``)."""
