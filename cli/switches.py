"""``pitch-arena account disable|enable NAME`` and ``pitch-arena bot disable|enable NAME``:
the operator's switches over authors' accounts and bots, written to the store directly
(the referees end a disabled bot's streams at their next heartbeat; the bot hosts stop its
hosted versions)."""

from __future__ import annotations

from typing import Annotated

import typer

from cli import common
from store.accounts import AccountError, Accounts

Name = Annotated[str, typer.Argument(help="The account's or bot's name.")]

account_app = typer.Typer(help="The operator's switches over authors' accounts.", no_args_is_help=True)
bot_app = typer.Typer(help="The operator's switches over bots (any bot, owned by an account or not).",
                      no_args_is_help=True)


def _switch(kind: str, name: str, disabled: bool) -> None:
    """Flip the operator's switch of the account or bot ``name`` and say what it does."""
    config = common.worker_config()
    with common.reaching(config):
        accounts = Accounts(common.open_store(config))
        try:
            shown = (accounts.set_disabled(name, disabled).name if kind == "account"
                     else accounts.set_bot_disabled(name, disabled).name)
        except AccountError as refused:
            common.fail(str(refused))
    effect = ("enabled" if not disabled else "disabled: its tokens stop working and its bots stop playing"
              if kind == "account" else "disabled: its streams end and its hosted versions stop")
    typer.echo(f"{kind} {shown} {effect}")


@account_app.command("disable")
def disable_account(name: Name) -> None:
    """Disable an account: its API tokens and sessions stop working, its bots stop playing."""
    _switch("account", name, True)


@account_app.command("enable")
def enable_account(name: Name) -> None:
    """Enable a disabled account again."""
    _switch("account", name, False)


@bot_app.command("disable")
def disable_bot(name: Name) -> None:
    """Disable a bot: its streams end and it cannot connect; its hosted versions stop."""
    _switch("bot", name, True)


@bot_app.command("enable")
def enable_bot(name: Name) -> None:
    """Enable a disabled bot again."""
    _switch("bot", name, False)
