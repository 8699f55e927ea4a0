! ring: a token passed around a ring of MPI ranks, in Fortran with the
! mpi module — a program of our own to record with `difftrace capture
! --only mpi`. In each round every rank passes a token to its right
! neighbour and receives one from its left with blocking MPI_Send and
! MPI_Recv (even ranks send first, odd ranks receive first, so the ring
! cannot deadlock), adds its rank, and all ranks check the round with
! MPI_Allreduce. Rank 0 prints the sum at the end.
!
!   mpirun -np 4 ./ring [--rounds N] [--swap-bug R ROUND]
!
! --swap-bug R ROUND plants a bug: from round ROUND on (counted from 1),
! rank R receives before it sends whatever its parity; the messages are
! small, so the run still ends, with rank R's calls in another order.
program ring
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, rounds, round, swap_rank, swap_round, i
  integer :: token, total
  character(len=32) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  rounds = 12
  swap_rank = -1
  swap_round = huge(1)
  i = 1
  do while (i <= command_argument_count())
    call get_command_argument(i, arg)
    select case (trim(arg))
    case ('--rounds')
      call get_command_argument(i + 1, arg)
      read (arg, *) rounds
      i = i + 2
    case ('--swap-bug')
      call get_command_argument(i + 1, arg)
      read (arg, *) swap_rank
      call get_command_argument(i + 2, arg)
      read (arg, *) swap_round
      i = i + 3
    case default
      if (rank == 0) print '(a)', 'usage: ring [--rounds N] [--swap-bug RANK ROUND]'
      call MPI_Finalize(ierr)
      stop 2
    end select
  end do

  token = rank
  do round = 1, rounds
    call pass_token(token, rank == swap_rank .and. round >= swap_round)
    call MPI_Allreduce(token, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) print '(a,i0)', 'sum of the tokens: ', total
  call MPI_Finalize(ierr)

contains

  ! pass_token sends token to the right neighbour and receives the left
  ! one's in its place, plus this rank.
  subroutine pass_token(token, swapped)
    integer, intent(inout) :: token
    logical, intent(in) :: swapped
    integer :: got, right, left, status(MPI_STATUS_SIZE)
    right = modulo(rank + 1, nprocs)
    left = modulo(rank - 1, nprocs)
    if (modulo(rank, 2) == 0 .and. .not. swapped) then
      call MPI_Send(token, 1, MPI_INTEGER, right, 0, MPI_COMM_WORLD, ierr)
      call MPI_Recv(got, 1, MPI_INTEGER, left, 0, MPI_COMM_WORLD, status, ierr)
    else
      call MPI_Recv(got, 1, MPI_INTEGER, left, 0, MPI_COMM_WORLD, status, ierr)
      call MPI_Send(token, 1, MPI_INTEGER, right, 0, MPI_COMM_WORLD, ierr)
    end if
    token = modulo(got + rank, 1000003)
  end subroutine pass_token

end program ring
