package scenario

import (
	"fmt"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers"
)

// Operational problems (not defects) from shared/ozone
// operational-problems.md, for the sample bundle and the benchmarks: each
// script renders the lines of one occurrence on one datanode, in the 2.2.0
// wording the notes give (thread names inferred, as in the signatures'
// cases).

const (
	problemsVolumeClass     = "org.apache.hadoop.ozone.container.common.volume.StorageVolume"
	problemsVolumeSetClass  = "org.apache.hadoop.ozone.container.common.volume.MutableVolumeSet"
	problemsContainerSet    = "org.apache.hadoop.ozone.container.common.impl.ContainerSet"
	problemsDispatcherClass = "org.apache.hadoop.ozone.container.common.impl.HddsDispatcher"
	problemsPauseClass      = "org.apache.ratis.util.JvmPauseMonitor"
)

// ProblemScripts returns the scripts of the operational problems, named
// "problems/<problem>".
func ProblemScripts() map[string]Script {
	return map[string]Script{
		// One data volume fails its I/O test and is marked FAILED; the
		// datanode runs on (a warning of dn-volume-failed).
		"problems/dn-volume-failed": func(s *Scenario, at time.Time) {
			problemVolumeFailed(s, s.Cluster.Datanodes[len(s.Cluster.Datanodes)*2/3], at, "/data7/hdds/hdds", 212)
		},
		// One data volume is full: writes to its containers are refused for
		// nine minutes (dn-out-of-space).
		"problems/dn-out-of-space": func(s *Scenario, at time.Time) {
			problemOutOfSpace(s, s.Cluster.Datanodes[len(s.Cluster.Datanodes)/2], at, "/data3/hdds/hdds", 1207)
		},
		// A datanode pauses 14 s in a full GC (long-jvm-pause; not
		// HDDS-17519, which is an SCM's pause).
		"problems/dn-gc-pause": func(s *Scenario, at time.Time) {
			problemGCPause(s, s.Cluster.Datanodes[len(s.Cluster.Datanodes)*2/3], at)
		},
	}
}

// problemVolumeFailed renders §2.1: V2 (StorageVolume.java:756 @ozone-2.2.0),
// V5 (MutableVolumeSet.java:226), V7 (MutableVolumeSet.java:244) and V9
// (ContainerSet.java:473).
func problemVolumeFailed(s *Scenario, dn Node, at time.Time, volume string, containers int) {
	add := func(d time.Duration, level parsers.Level, logger, msg, src string) {
		s.Add(Line{At: at.Add(d), Host: dn.Host, Level: level, Logger: logger, Thread: "DiskChecker-0", Msg: msg, Source: src})
	}
	add(0, parsers.LevelError, problemsVolumeClass, "Failed IO test for volume "+volume+": encountered more than the 1 tolerated failures within the past 3600000 ms.", "StorageVolume.java:756")
	add(3*time.Millisecond, parsers.LevelError, problemsVolumeSetClass, "checkAllVolumes got 1 failed volumes - ["+volume+"]", "MutableVolumeSet.java:226")
	add(4*time.Millisecond, parsers.LevelError, problemsVolumeSetClass, "Marking volume "+volume+" as failed", "MutableVolumeSet.java:244")
	add(192*time.Millisecond, parsers.LevelInfo, problemsContainerSet, fmt.Sprintf("Removed %d containers on failed volumes", containers), "ContainerSet.java:473")
}

// problemOutOfSpace renders §2.2: S1 (HddsDispatcher.java:352, text
// ContainerUtils.java:380-382 @ozone-2.2.0) and S2 (ContainerUtils.java:90-100
// via HddsDispatcher.java:356, an empty Trace ID) for four writes over nine
// minutes, each to a new container.
func problemOutOfSpace(s *Scenario, dn Node, at time.Time, volume string, container int) {
	const capacity, spared = 1099511627776, 5368709120
	used := int64(1094268747776)
	for i, op := range []string{"WriteChunk", "PutBlock", "WriteChunk", "WriteChunk"} {
		t := at.Add(time.Duration(i) * 3 * time.Minute).Add(time.Duration(i*137) * time.Millisecond)
		th := fmt.Sprintf("ChunkWriter-%d-0", (i*2+3)%8)
		text := fmt.Sprintf("Failed to write 0 bytes to container %d due to volume %s out of space capacity=%d, used=%d, available=%d, minimum free space spared=%d",
			container+i*6, volume, capacity, used, capacity-used, spared)
		s.Add(Line{At: t, Host: dn.Host, Level: parsers.LevelWarn, Logger: problemsDispatcherClass, Thread: th, Msg: text, Source: "HddsDispatcher.java:352"})
		s.Add(Line{At: t.Add(time.Millisecond), Host: dn.Host, Level: parsers.LevelWarn, Logger: problemsDispatcherClass, Thread: th,
			Msg: "Operation: " + op + " , Trace ID:  , Message: " + text + " , Result: DISK_OUT_OF_SPACE , StorageContainerException Occurred.", Source: "HddsDispatcher.java:356"})
		used += 2097152
	}
}

// problemGCPause renders the Ratis JvmPauseMonitor T03 line with its "GC
// pool" continuation ([ratis-3.2.1] JvmPauseMonitor.java:70-91,168;
// signatures-scm.md §1.3); the monitor is named after the datanode's peer ID,
// its UUID.
func problemGCPause(s *Scenario, dn Node, at time.Time) {
	s.Add(Line{At: at, Host: dn.Host, Level: parsers.LevelWarn, Logger: problemsPauseClass, Thread: "JvmPauseMonitor0",
		Msg:    "JvmPauseMonitor-" + dn.UUID + ": Detected pause in JVM or host machine approximately 14.213s with 13.987s GC time.\nGC pool 'G1 Old Generation' had collection(s): count=1 time=13987ms",
		Source: "JvmPauseMonitor.java:91"})
}
