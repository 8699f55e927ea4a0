! bar: an MPI Fortran program for difftrace's one-run analysis (difftrace
! rank RUN): a bar cut into one piece per rank relaxes towards equilibrium.
! Every rank runs the same iterations; the first and the last rank have
! one neighbour each (they send and receive half the halos the others do),
! and rank 0 reports the norm every few iterations.
!
!   bar [--iters N] [--short RANK ITER] [--skip-norm RANK ITER]
!
! --short RANK ITER: in iteration ITER (from 1), RANK relaxes in one sweep
! fewer: a loop that ran once fewer.
! --skip-norm RANK ITER: in iteration ITER, RANK does not compute its
! local norm (it sends the last one again): one call its peers all make,
! missing.
module bar_ops
  implicit none
  integer, parameter :: cells = 48, sweeps = 3
contains
  subroutine halo(u, rank, nproc)
    use mpi
    double precision, intent(inout) :: u(0:cells+1)
    integer, intent(in) :: rank, nproc
    integer :: ierr
    if (rank > 0) then
      call mpi_sendrecv(u(1), 1, mpi_double_precision, rank-1, 0, u(0), 1, mpi_double_precision, rank-1, 0, &
                        mpi_comm_world, mpi_status_ignore, ierr)
    end if
    if (rank < nproc-1) then
      call mpi_sendrecv(u(cells), 1, mpi_double_precision, rank+1, 0, u(cells+1), 1, mpi_double_precision, rank+1, 0, &
                        mpi_comm_world, mpi_status_ignore, ierr)
    end if
  end subroutine halo

  subroutine sweep(u)
    double precision, intent(inout) :: u(0:cells+1)
    integer :: i
    do i = 1, cells
      u(i) = 0.5d0 * u(i) + 0.25d0 * (u(i-1) + u(i+1))
    end do
  end subroutine sweep

  subroutine relax(u, n)
    double precision, intent(inout) :: u(0:cells+1)
    integer, intent(in) :: n
    integer :: s
    do s = 1, n
      call sweep(u)
    end do
  end subroutine relax

  double precision function local_norm(u)
    double precision, intent(in) :: u(0:cells+1)
    local_norm = sum(u(1:cells)**2)
  end function local_norm

  subroutine report(iter, norm)
    integer, intent(in) :: iter
    double precision, intent(in) :: norm
    print '(a,i4,a,es12.4)', 'iteration', iter, ': norm', norm
  end subroutine report
end module bar_ops

program bar
  use mpi
  use bar_ops
  implicit none
  double precision :: u(0:cells+1), mine, total
  integer :: rank, nproc, ierr, iter, iters, a, n, i
  integer :: short_rank, short_iter, skip_rank, skip_iter
  character(len=32) :: arg

  call mpi_init(ierr)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  call mpi_comm_size(mpi_comm_world, nproc, ierr)
  iters = 10
  short_rank = -1; short_iter = -1; skip_rank = -1; skip_iter = -1
  a = 1
  do while (a <= command_argument_count())
    call get_command_argument(a, arg)
    select case (trim(arg))
    case ('--iters')
      call get_command_argument(a+1, arg); read (arg, *) iters; a = a + 2
    case ('--short')
      call get_command_argument(a+1, arg); read (arg, *) short_rank
      call get_command_argument(a+2, arg); read (arg, *) short_iter; a = a + 3
    case ('--skip-norm')
      call get_command_argument(a+1, arg); read (arg, *) skip_rank
      call get_command_argument(a+2, arg); read (arg, *) skip_iter; a = a + 3
    case default
      if (rank == 0) print *, 'usage: bar [--iters N] [--short RANK ITER] [--skip-norm RANK ITER]'
      call mpi_abort(mpi_comm_world, 2, ierr)
    end select
  end do

  do i = 0, cells + 1
    u(i) = mod(i + rank, 5) * 1.0d0
  end do
  mine = 0
  do iter = 1, iters
    call halo(u, rank, nproc)
    n = sweeps
    if (rank == short_rank .and. iter == short_iter) n = sweeps - 1
    call relax(u, n)
    if (.not. (rank == skip_rank .and. iter == skip_iter)) mine = local_norm(u)
    call mpi_allreduce(mine, total, 1, mpi_double_precision, mpi_sum, mpi_comm_world, ierr)
    if (rank == 0 .and. mod(iter, 5) == 0) call report(iter, total)
  end do
  call mpi_finalize(ierr)
end program bar
