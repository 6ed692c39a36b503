// Command pitch-go-bot runs the bot of package strategy against a referee until Ctrl-C or
// SIGTERM:
//
//	./pitch-go-bot --referee HOST:PORT --token TOKEN
//
// (or PITCH_REFEREE and PITCH_BOT_TOKEN in the environment, like `pitch-bot run`).
// Exit codes: 0 stopped by a signal; 2 bad arguments, or the referee refused the token or hello.
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"pitchkit/client"
	"pitchkit/strategy"
)

type rulesetList []string

func (r *rulesetList) String() string     { return strings.Join(*r, ",") }
func (r *rulesetList) Set(v string) error { *r = append(*r, v); return nil }

func main() {
	referee := flag.String("referee", os.Getenv("PITCH_REFEREE"), "referee address HOST:PORT (or PITCH_REFEREE)")
	token := flag.String("token", os.Getenv("PITCH_BOT_TOKEN"), "the bot's token from registration (or PITCH_BOT_TOKEN)")
	capacity := flag.Uint("capacity", 4, "seats to play at once, across matches (1..1024)")
	var rulesets rulesetList
	flag.Var(&rulesets, "ruleset", "only this preset (repeatable; default: all)")
	flag.Parse()
	log.SetFlags(log.LstdFlags | log.Lmicroseconds | log.LUTC)

	switch {
	case *referee == "":
		usage("give --referee HOST:PORT (or PITCH_REFEREE)")
	case *token == "":
		usage("give --token (or PITCH_BOT_TOKEN): `pitch-arena register NAME` prints one")
	case *capacity < 1 || *capacity > 1024:
		usage("--capacity is 1..1024")
	}
	connection := client.New(*referee, *token, strategy.Bot{},
		client.Options{Capacity: uint32(*capacity), Rulesets: rulesets})
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-signals
		connection.Stop()
	}()
	if err := connection.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		if errors.Is(err, client.ErrRefused) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

func usage(problem string) {
	fmt.Fprintf(os.Stderr, "error: %s\n", problem)
	flag.Usage()
	os.Exit(2)
}
