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


def _switch_account(name: str, disabled: bool) -> None:
    config = common.worker_config()
    with common.reaching(config):
        try:
            account = Accounts(common.open_store(config)).set_disabled(name, disabled)
        except AccountError as refused:
            common.fail(str(refused))
    effect = "disabled: its tokens stop working and its bots stop playing" if disabled else "enabled"
    typer.echo(f"account {account.name} {effect}")


def _switch_bot(name: str, disabled: bool) -> None:
    config = common.worker_config()
    with common.reaching(config):
        try:
            record = Accounts(common.open_store(config)).set_bot_disabled(name, disabled)
        except AccountError as refused:
            common.fail(str(refused))
    effect = "disabled: its streams end and its hosted versions stop" if disabled else "enabled"
    typer.echo(f"bot {record.name} {effect}")


@account_app.command("disable")
def disable_account(name: Name) -> None:
    """Disable an account: its API tokens and sessions stop working, its bots stop playing."""
    _switch_account(name, True)


@account_app.command("enable")
def enable_account(name: Name) -> None:
    """Enable a disabled account again."""
    _switch_account(name, False)


@bot_app.command("disable")
def disable_bot(name: Name) -> None:
    """Disable a bot: its streams end and it cannot connect; its hosted versions stop."""
    _switch_bot(name, True)


@bot_app.command("enable")
def enable_bot(name: Name) -> None:
    """Enable a disabled bot again."""
    _switch_bot(name, False)
