/*
Copyright 2026 The Kubernetes Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package framework

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// iptablesTables are the tables whose chains the node's teardown compares
// with what was there before it started.
var iptablesTables = []string{"filter", "nat", "mangle", "raw"}

// iptablesCommands are the iptables front ends of each address family.
var iptablesCommands = []string{"iptables", "ip6tables"}

// iptablesChains returns the chains of every table of both families, keyed
// by "<command> <table>". It only reads (iptables-save creates nothing).
func iptablesChains(ctx context.Context) (map[string][]string, error) {
	chains := map[string][]string{}
	for _, command := range iptablesCommands {
		if _, err := exec.LookPath(command + "-save"); err != nil {
			continue
		}
		for _, table := range iptablesTables {
			dump, err := iptablesSave(ctx, command, table)
			if err != nil {
				return nil, err
			}
			chains[command+" "+table] = dump.chains
		}
	}
	return chains, nil
}

// removeNewIPTablesChains deletes the chains that are not in before (what
// iptablesChains returned before the node started: the kubelet's, the CNI
// plugins' and the framework's own), with the rules of other chains that
// jump to them.
func removeNewIPTablesChains(ctx context.Context, before map[string][]string) error {
	var errs []error
	for _, command := range iptablesCommands {
		if _, err := exec.LookPath(command + "-save"); err != nil {
			continue
		}
		for _, table := range iptablesTables {
			if err := removeNewChains(ctx, command, table, before[command+" "+table]); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

func removeNewChains(ctx context.Context, command, table string, before []string) error {
	dump, err := iptablesSave(ctx, command, table)
	if err != nil {
		return err
	}
	var added []string
	for _, chain := range dump.chains {
		if !slices.Contains(before, chain) && !builtinChain(chain) {
			added = append(added, chain)
		}
	}
	if len(added) == 0 {
		return nil
	}
	var errs []error
	// Rules of kept chains that jump to an added chain, last first so that
	// the rule numbers stay right.
	for _, chain := range dump.chainOrder {
		if slices.Contains(added, chain) {
			continue
		}
		rules := dump.rules[chain]
		for i := len(rules) - 1; i >= 0; i-- {
			if target := ruleTarget(rules[i]); slices.Contains(added, target) {
				if _, err := runCommand(ctx, command, "-w", "-t", table, "-D", chain, strconv.Itoa(i+1)); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	// Flush all before deleting any: added chains may jump to each other.
	for _, chain := range added {
		if _, err := runCommand(ctx, command, "-w", "-t", table, "-F", chain); err != nil {
			errs = append(errs, err)
		}
	}
	for _, chain := range added {
		if _, err := runCommand(ctx, command, "-w", "-t", table, "-X", chain); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// iptablesTablesPresent returns the tables that exist, as "<command> <table>".
func iptablesTablesPresent(ctx context.Context) ([]string, error) {
	var present []string
	for _, command := range iptablesCommands {
		if _, err := exec.LookPath(command + "-save"); err != nil {
			continue
		}
		out, err := runCommand(ctx, command+"-save")
		if err != nil {
			return nil, fmt.Errorf("reading iptables tables: %w", err)
		}
		for _, line := range strings.Split(out, "\n") {
			if table, ok := strings.CutPrefix(line, "*"); ok {
				present = append(present, command+" "+strings.TrimSpace(table))
			}
		}
	}
	return present, nil
}

// nftFamilies are the nftables families of the iptables front ends.
var nftFamilies = map[string]string{"iptables": "ip", "ip6tables": "ip6"}

// removeNewIPTablesTables deletes the tables that did not exist before
// (adding a rule creates its table, with the built-in chains) once they
// are empty again. Only iptables over nftables can delete a table, with nft.
func removeNewIPTablesTables(ctx context.Context, before []string) error {
	if _, err := exec.LookPath("nft"); err != nil {
		return nil
	}
	present, err := iptablesTablesPresent(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, key := range present {
		if slices.Contains(before, key) {
			continue
		}
		command, table, _ := strings.Cut(key, " ")
		if version, err := runCommand(ctx, command, "--version"); err != nil || !strings.Contains(version, "nf_tables") {
			continue
		}
		dump, err := iptablesSave(ctx, command, table)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(dump.rules) > 0 || slices.ContainsFunc(dump.chains, func(c string) bool { return !builtinChain(c) }) {
			continue
		}
		if _, err := runCommand(ctx, "nft", "delete", "table", nftFamilies[command], table); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// iptablesDump is one table as iptables-save prints it.
type iptablesDump struct {
	chains     []string
	chainOrder []string            // chains that have rules, in order
	rules      map[string][]string // rules of each chain, in order, without "-A <chain>"
}

func iptablesSave(ctx context.Context, command, table string) (*iptablesDump, error) {
	out, err := runCommand(ctx, command+"-save", "-t", table)
	if err != nil {
		return nil, fmt.Errorf("reading iptables table %s: %w", table, err)
	}
	dump := &iptablesDump{rules: map[string][]string{}}
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, ":"):
			if fields := strings.Fields(line[1:]); len(fields) > 0 {
				dump.chains = append(dump.chains, fields[0])
			}
		case strings.HasPrefix(line, "-A "):
			fields := strings.SplitN(line[3:], " ", 2)
			chain := fields[0]
			if _, ok := dump.rules[chain]; !ok {
				dump.chainOrder = append(dump.chainOrder, chain)
			}
			rule := ""
			if len(fields) == 2 {
				rule = fields[1]
			}
			dump.rules[chain] = append(dump.rules[chain], rule)
		}
	}
	return dump, nil
}

// ruleTarget returns the chain a rule jumps (-j) or goes (-g) to.
func ruleTarget(rule string) string {
	fields := strings.Fields(rule)
	for i := 0; i+1 < len(fields); i++ {
		if fields[i] == "-j" || fields[i] == "-g" {
			return fields[i+1]
		}
	}
	return ""
}

func builtinChain(chain string) bool {
	switch chain {
	case "INPUT", "OUTPUT", "FORWARD", "PREROUTING", "POSTROUTING":
		return true
	}
	return false
}
