// Command pitch-go-bot runs the bot of package strategy against a referee until Ctrl-C or
// SIGTERM:
//
//	./pitch-go-bot --referee HOST:PORT --token TOKEN
//
// (or PITCH_REFEREE and PITCH_BOT_TOKEN in the environment, like `pitch-bot run`); an arena
// that speaks TLS: --tls-ca ca.pem (or PITCH_TLS_CA), or --tls for a publicly issued certificate.
// Exit codes: 0 stopped by a signal; 2 bad arguments, or the referee refused the token or hello.
package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"google.golang.org/grpc/credentials"

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
	useTLS := flag.Bool("tls", false, "speak TLS to the referee (the system's roots unless --tls-ca)")
	tlsCA := flag.String("tls-ca", os.Getenv("PITCH_TLS_CA"),
		"PEM file of the arena's CA to trust (implies --tls; or PITCH_TLS_CA)")
	tlsName := flag.String("tls-server-name", os.Getenv("PITCH_TLS_SERVER_NAME"),
		"the name expected on the referee's certificate when it differs from the host dialled")
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
	var security credentials.TransportCredentials
	switch {
	case *tlsCA != "":
		fromFile, err := credentials.NewClientTLSFromFile(*tlsCA, *tlsName)
		if err != nil {
			usage(fmt.Sprintf("--tls-ca: %v", err))
		}
		security = fromFile
	case *useTLS:
		security = credentials.NewTLS(&tls.Config{ServerName: *tlsName})
	}
	connection := client.New(*referee, *token, strategy.Bot{},
		client.Options{Capacity: uint32(*capacity), Rulesets: rulesets, Credentials: security})
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
