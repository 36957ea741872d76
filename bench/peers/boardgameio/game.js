// The Warroom toy game (tests/engine/toy_game.py) as a boardgame.io game, for the peer benchmark.
//
// Same rules, same decisions, same alternation: each round both seats place a card face down
// (simultaneously: both are active until each has placed); the higher card's owner spends up to
// two bonus points one at a time (score or stop); the loser may protest (a coin flip from the
// game's random plugin, which may take a point back). Three rounds; about 13 moves a game.
// Every move is validated by the server: a seat that is not active, or a card it does not hold,
// or a move of the wrong phase is refused (boardgame.io's INVALID_MOVE / inactive player).
'use strict';

const { INVALID_MOVE } = require('boardgame.io/core');

const CARDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
const ROUNDS = 3;

function only(seat) {
  return { value: { [String(seat)]: null } };
}

function nextRound(G, events) {
  if (G.round >= ROUNDS) {
    G.phase = 'over';
    G.roundWinner = -1;
    events.setActivePlayers({ value: {} });
    return;
  }
  G.hands[0] = [...G.hands[0], G.deck[0]].sort((a, b) => a - b);
  G.hands[1] = [...G.hands[1], G.deck[1]].sort((a, b) => a - b);
  G.deck = G.deck.slice(2);
  G.round += 1;
  G.phase = 'play';
  G.roundWinner = -1;
  events.setActivePlayers({ value: { 0: null, 1: null } });
}

function place({ G, playerID, events }, card) {
  const seat = Number(playerID);
  if (G.phase !== 'play' || G.placed[seat] !== 0 || !G.hands[seat].includes(card)) {
    return INVALID_MOVE;
  }
  G.hands[seat] = G.hands[seat].filter((c) => c !== card);
  G.placed[seat] = card;
  if (G.placed[1 - seat] === 0) {
    events.setActivePlayers(only(1 - seat));
    return undefined;
  }
  const [a, b] = G.placed;
  const winner = a > b ? 0 : b > a ? 1 : -1;
  G.discard.push(a, b);
  G.placed = [0, 0];
  G.roundWinner = winner;
  if (winner >= 0) {
    G.phase = 'bonus';
    G.bonusLeft = 2;
    events.setActivePlayers(only(winner));
  } else {
    nextRound(G, events);
  }
  return undefined;
}

function bonus({ G, playerID, events }, choice) {
  const seat = Number(playerID);
  if (G.phase !== 'bonus' || seat !== G.roundWinner || (choice !== 'score' && choice !== 'stop')) {
    return INVALID_MOVE;
  }
  if (choice === 'score') {
    G.scores[seat] += 1;
    G.bonusLeft -= 1;
  }
  if (choice === 'stop' || G.bonusLeft === 0) {
    G.phase = 'react';
    events.setActivePlayers(only(1 - seat));
  }
  return undefined;
}

function react({ G, playerID, events, random }, choice) {
  const seat = Number(playerID);
  if (G.phase !== 'react' || seat !== 1 - G.roundWinner || (choice !== 'pass' && choice !== 'protest')) {
    return INVALID_MOVE;
  }
  if (choice === 'protest' && random.Die(2) === 2) {
    const winner = G.roundWinner;
    G.scores[winner] = Math.max(0, G.scores[winner] - 1);
  }
  nextRound(G, events);
  return undefined;
}

const ToyGame = {
  name: 'toy',
  minPlayers: 2,
  maxPlayers: 2,
  setup: ({ random }) => {
    const deck = random.Shuffle(CARDS);
    return {
      deck: deck.slice(6),
      hands: [deck.slice(0, 3).sort((a, b) => a - b), deck.slice(3, 6).sort((a, b) => a - b)],
      placed: [0, 0],
      discard: [],
      scores: [0, 0],
      round: 1,
      phase: 'play',
      roundWinner: -1,
      bonusLeft: 0,
    };
  },
  turn: { activePlayers: { value: { 0: null, 1: null } } },
  moves: { place, bonus, react },
  // Each seat sees its own hand only (as the Warroom seat views do).
  playerView: ({ G, playerID }) => {
    const seat = Number(playerID);
    const hands = G.hands.map((hand, i) => (i === seat ? hand : hand.length));
    const placed = G.placed.map((card, i) => (i === seat ? card : card !== 0));
    return { ...G, deck: G.deck.length, hands, placed };
  },
  endIf: ({ G }) => (G.phase === 'over' ? { scores: G.scores } : undefined),
};

// The moves a seat may make in a (seat-filtered) state: [move name, argument] pairs.
function legalMoves(G, seat) {
  if (G.phase === 'play' && G.placed[seat] === 0) return G.hands[seat].map((c) => ['place', c]);
  if (G.phase === 'bonus' && seat === G.roundWinner) return [['bonus', 'score'], ['bonus', 'stop']];
  if (G.phase === 'react' && seat === 1 - G.roundWinner) return [['react', 'pass'], ['react', 'protest']];
  return [];
}

module.exports = { ToyGame, legalMoves };
