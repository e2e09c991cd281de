package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfiles starts a CPU profile into cpuFile and arranges a heap
// profile into memFile (either may be ""); the returned stop writes them.
func startProfiles(cpuFile, memFile string) (stop func() error, err error) {
	var cpu *os.File
	if cpuFile != "" {
		if cpu, err = os.Create(cpuFile); err != nil {
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
	}
	if memFile != "" {
		// Fail now rather than after a long run.
		f, err := os.Create(memFile)
		if err != nil {
			if cpu != nil {
				pprof.StopCPUProfile()
				cpu.Close()
			}
			return nil, fmt.Errorf("--memprofile: %w", err)
		}
		f.Close()
	}
	return func() error {
		var errs []error
		if cpu != nil {
			pprof.StopCPUProfile()
			errs = append(errs, cpu.Close())
		}
		if memFile != "" {
			f, err := os.Create(memFile)
			if err != nil {
				return errors.Join(append(errs, err)...)
			}
			runtime.GC() // up-to-date statistics of what the run retained
			errs = append(errs, pprof.WriteHeapProfile(f), f.Close())
		}
		return errors.Join(errs...)
	}, nil
}
