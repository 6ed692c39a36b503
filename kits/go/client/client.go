// Package client is the bot's connection to a referee, as the file comment of
// protos/pitch/v1/bot.proto describes the conversation: Connect with the token in the
// `authorization` metadata, hello, then answer every decision request of every seat;
// reconnect with backoff when the stream drops (the referee resumes the seats within its
// grace window); batches both ways; a clean stop when Stop is called.
package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand"
	"runtime/debug"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	pb "pitchkit/gen/pitch/v1"
)

// ProtocolVersion is the protocol this kit speaks.
const ProtocolVersion = "pitch.v1"

const (
	maxBatch     = 4096 // the referee's limit on messages in one batch
	firstBackoff = 250 * time.Millisecond
	stopGrace    = 2 * time.Second // how long a stop waits for the referee to end the stream
)

// ErrRefused is what reconnecting cannot fix: a rejected token, a refused hello.
var ErrRefused = errors.New("refused by the referee")

// Answer is a strategy's reply to a decision: an index into legal_actions, or an action.
type Answer struct {
	index  int
	action *pb.Action
}

// Index answers with request.LegalActions[i].
func Index(i int) Answer { return Answer{index: i} }

// Act answers with an action (required for a card-set choice sent as a rule only).
func Act(action *pb.Action) Answer { return Answer{action: action} }

// Seat is one seat this bot plays in one match.
type Seat struct {
	Started *pb.MatchStarted // the match's variant, seat names, games, time control
	Memory  any              // the strategy's own, kept between decisions
}

// Strategy is a bot: see package strategy for the example.
type Strategy interface {
	Name() string
	Version() string
	Decide(request *pb.DecisionRequest, seat *Seat) (Answer, error)
}

// MatchEnder is an optional hook of a Strategy: called once per seat when its match ends.
type MatchEnder interface {
	MatchEnded(result *pb.MatchResult, seat *Seat)
}

// Options configure a Connection.
type Options struct {
	Capacity   uint32   // seats to play at once, across matches (0: 1)
	Rulesets   []string // presets the bot plays (empty: all)
	MaxBackoff time.Duration
	// Credentials secure the channel (TLS to an arena that speaks it); nil: plaintext.
	Credentials credentials.TransportCredentials
}

// Connection is a bot process's connection to one referee.
type Connection struct {
	address  string
	token    string
	strategy Strategy
	options  Options
	stop     chan struct{}
	stopOnce sync.Once

	mu    sync.Mutex
	seats map[string]*Seat // "match_id/seat"

	// Counters, for the summary when the bot stops.
	Matches, Decisions, Strikes int
}

// New prepares a connection; Run connects.
func New(address, token string, strategy Strategy, options Options) *Connection {
	if options.MaxBackoff == 0 {
		options.MaxBackoff = 10 * time.Second
	}
	return &Connection{address: address, token: token, strategy: strategy, options: options,
		stop: make(chan struct{}), seats: map[string]*Seat{}}
}

// Stop leaves cleanly: what is queued is sent, the stream half-closed, and Run returns.
func (c *Connection) Stop() { c.stopOnce.Do(func() { close(c.stop) }) }

func (c *Connection) stopping() bool {
	select {
	case <-c.stop:
		return true
	default:
		return false
	}
}

// Run plays until Stop; it returns an error wrapping ErrRefused when retrying cannot help.
func (c *Connection) Run() error {
	security := grpc.WithInsecure()
	if c.options.Credentials != nil {
		security = grpc.WithTransportCredentials(c.options.Credentials)
	}
	conn, err := grpc.Dial(c.address, security)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrRefused, err)
	}
	defer conn.Close()
	stub := pb.NewBotServiceClient(conn)
	backoff := firstBackoff
	for !c.stopping() {
		welcomed, err := c.session(stub)
		if errors.Is(err, ErrRefused) {
			return err
		}
		if err != nil && !c.stopping() {
			log.Printf("WARN stream to %s lost (%v)", c.address, err)
		}
		if c.stopping() {
			break
		}
		if welcomed {
			backoff = firstBackoff
		}
		delay := time.Duration(float64(backoff) * (0.5 + rand.Float64()))
		log.Printf("INFO reconnecting in %v", delay.Round(time.Millisecond))
		select {
		case <-c.stop:
		case <-time.After(delay):
		}
		if backoff *= 2; backoff > c.options.MaxBackoff {
			backoff = c.options.MaxBackoff
		}
	}
	log.Printf("INFO stopped after %d matches, %d decisions, %d strikes", c.Matches, c.Decisions, c.Strikes)
	return nil
}

// session runs one stream until it ends; whether the referee welcomed it.
func (c *Connection) session(stub pb.BotServiceClient) (bool, error) {
	ctx, cancel := context.WithCancel(metadata.AppendToOutgoingContext(context.Background(),
		"authorization", "Bearer "+c.token))
	defer cancel()
	stream, err := stub.Connect(ctx)
	if err != nil {
		return false, err
	}
	outbox := make(chan *pb.BotMessage, 64)
	sessionOver := make(chan struct{})
	defer close(sessionOver)
	outbox <- &pb.BotMessage{Message: &pb.BotMessage_Hello{Hello: &pb.Hello{
		BotName: c.strategy.Name(), BotVersion: c.strategy.Version(), Sdk: "pitch-arena go kit, grpc-go",
		ProtocolVersions: []string{ProtocolVersion}, Rulesets: c.options.Rulesets,
		Capacity: c.options.Capacity, Batching: true}}}
	go c.write(stream, outbox, sessionOver, cancel)

	welcomed := false
	for {
		message, err := stream.Recv()
		if err == io.EOF {
			return welcomed, nil
		}
		if err != nil {
			switch code := status.Code(err); {
			case code == codes.Unauthenticated:
				return welcomed, fmt.Errorf("%w: the referee rejected the token: %s", ErrRefused, status.Convert(err).Message())
			case code == codes.Canceled && c.stopping():
				return welcomed, nil
			}
			return welcomed, err
		}
		inner := []*pb.RefereeMessage{message}
		if batch := message.GetBatch(); batch != nil {
			inner = batch.GetMessages()
		}
		for _, one := range inner {
			if err := c.handle(one, outbox, sessionOver); err != nil {
				return welcomed, err
			}
			if one.GetWelcome() != nil {
				welcomed = true
			}
		}
	}
}

// write is the stream's only sender: each message as it comes, or, when several are ready
// at once, one batch of them; on Stop it half-closes the stream and gives the referee
// stopGrace to end it.
func (c *Connection) write(stream pb.BotService_ConnectClient, outbox chan *pb.BotMessage,
	sessionOver chan struct{}, cancel context.CancelFunc) {
	for {
		select {
		case <-sessionOver:
			return
		case <-c.stop:
			for drained := false; !drained; {
				select {
				case message := <-outbox:
					_ = stream.Send(message)
				default:
					drained = true
				}
			}
			_ = stream.CloseSend()
			select {
			case <-sessionOver:
			case <-time.After(stopGrace):
				cancel()
			}
			return
		case message := <-outbox:
			ready := []*pb.BotMessage{message}
			for more := message.GetHello() == nil; more && len(ready) < maxBatch; {
				select {
				case next := <-outbox:
					ready = append(ready, next)
				default:
					more = false
				}
			}
			if len(ready) > 1 {
				message = &pb.BotMessage{Message: &pb.BotMessage_Batch{Batch: &pb.BotMessages{Messages: ready}}}
			}
			if stream.Send(message) != nil {
				return // the stream is gone; Recv says why
			}
		}
	}
}

// handle acts on one referee message.
func (c *Connection) handle(message *pb.RefereeMessage, outbox chan *pb.BotMessage, sessionOver chan struct{}) error {
	switch m := message.GetMessage().(type) {
	case *pb.RefereeMessage_Welcome:
		log.Printf("INFO connected to %s as %s (bot %s, session %s)", c.address, c.strategy.Name(),
			m.Welcome.GetBotId(), m.Welcome.GetSessionId())
	case *pb.RefereeMessage_Refusal:
		if m.Refusal.GetReason() != pb.RefusalReason_REFUSAL_REASON_SHUTTING_DOWN {
			return fmt.Errorf("%w: %s", ErrRefused, m.Refusal.GetMessage())
		}
		log.Printf("WARN the referee is shutting down; trying again later")
	case *pb.RefereeMessage_MatchStarted:
		c.startSeat(m.MatchStarted)
	case *pb.RefereeMessage_DecisionRequest:
		go c.decide(m.DecisionRequest, outbox, sessionOver)
	case *pb.RefereeMessage_Strike:
		s := m.Strike
		c.mu.Lock()
		c.Strikes++
		c.mu.Unlock()
		log.Printf("WARN strike %d in match %s seat %d: %s (the referee played %s)", s.GetStrikes(),
			s.GetMatchId(), s.GetSeat(), s.GetMessage(), s.GetFallback().GetText())
	case *pb.RefereeMessage_MatchEnded:
		c.endMatch(m.MatchEnded)
	case *pb.RefereeMessage_Error:
		log.Printf("ERROR the referee refused a request: %s", m.Error.GetMessage())
	}
	// Events (what no request carried, sent as a match ends): this kit needs none.
	return nil
}

func seatKey(matchID string, seat uint32) string { return fmt.Sprintf("%s/%d", matchID, seat) }

func (c *Connection) startSeat(started *pb.MatchStarted) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := seatKey(started.GetMatchId(), started.GetSeat())
	if _, ok := c.seats[key]; ok {
		return // sent again after a reconnection: keep the seat's memory
	}
	c.seats[key] = &Seat{Started: started}
	log.Printf("INFO match %s: playing seat %d of %s", started.GetMatchId(), started.GetSeat(),
		started.GetRuleset().GetName())
}

// endMatch: each seat gets its own match_ended; the first one ends all of the match's seats.
func (c *Connection) endMatch(ended *pb.MatchEnded) {
	c.mu.Lock()
	var seats []*Seat
	for key, seat := range c.seats {
		if seat.Started.GetMatchId() == ended.GetMatchId() {
			seats = append(seats, seat)
			delete(c.seats, key)
		}
	}
	if len(seats) > 0 {
		c.Matches++
	}
	c.mu.Unlock()
	if len(seats) == 0 {
		return
	}
	if ender, ok := c.strategy.(MatchEnder); ok {
		for _, seat := range seats {
			ender.MatchEnded(ended.GetResult(), seat)
		}
	}
	log.Printf("INFO match %s ended (completed: %v)", ended.GetMatchId(), ended.GetResult().GetCompleted())
}

// decide asks the strategy and queues the answer; a strategy that fails is answered with
// no action (the referee strikes the seat and plays its fallback).
func (c *Connection) decide(request *pb.DecisionRequest, outbox chan *pb.BotMessage, sessionOver chan struct{}) {
	c.mu.Lock()
	seat, ok := c.seats[seatKey(request.GetMatchId(), request.GetSeat())]
	c.mu.Unlock()
	if !ok {
		seat = &Seat{}
	}
	decision := &pb.Decision{MatchId: request.GetMatchId(), DecisionId: request.GetDecisionId()}
	answer, err := c.ask(request, seat)
	switch {
	case err != nil:
		log.Printf("ERROR strategy failed on %s in match %s: %v", request.GetKind(), request.GetMatchId(), err)
	case answer.action != nil:
		if rule := request.GetCardSet(); rule != nil && answer.action.GetCards() != nil &&
			!MeetsRule(rule, answer.action.GetCards().GetCards()) {
			log.Printf("ERROR the strategy's cards do not meet the rule of decision %s", request.GetDecisionId())
		}
		decision.Answer = &pb.Decision_Action{Action: answer.action}
	default:
		decision.Answer = &pb.Decision_LegalActionIndex{LegalActionIndex: uint32(answer.index)}
	}
	c.mu.Lock()
	c.Decisions++
	c.mu.Unlock()
	select {
	case outbox <- &pb.BotMessage{Message: &pb.BotMessage_Decision{Decision: decision}}:
	case <-sessionOver: // the stream is gone: the referee asks again after a reconnection
	}
}

func (c *Connection) ask(request *pb.DecisionRequest, seat *Seat) (answer Answer, err error) {
	defer func() {
		if panicked := recover(); panicked != nil {
			err = fmt.Errorf("panic: %v\n%s", panicked, debug.Stack())
		}
	}()
	return c.strategy.Decide(request, seat)
}
